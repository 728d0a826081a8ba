package workspace

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/uri"
)

func TestPathFromURI(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	tests := []struct {
		uri     string
		want    string
		wantErr error
		errHas  string // the error must name this
	}{
		{uri: "file:///home/me/main.go", want: "/home/me/main.go"},
		{uri: "file:///home/me/my%20project/a%20b.go", want: "/home/me/my project/a b.go"},
		{uri: "file:///x/100%25/y.go", want: "/x/100%/y.go"},
		{uri: "file:///tmp/%E6%97%A5%E6%9C%AC/%F0%9F%98%80.go", want: "/tmp/日本/😀.go"},
		{uri: "file:///p/%23hash%3Fquery.go", want: "/p/#hash?query.go"},
		{uri: "file:///a%3Ab/c.go", want: "/a:b/c.go"},
		{uri: "file:///a b/c.go", want: "/a b/c.go"}, // not canonical, still understood
		{uri: "file:///a//b/./c.go", want: "/a/b/c.go"},
		{uri: "file://localhost/etc/hosts", want: "/etc/hosts"},
		{uri: "file://server/share/x.go", wantErr: ErrNotFile, errHas: `"server"`},
		{uri: "untitled:Untitled-1", wantErr: ErrNotFile, errHas: `"untitled"`},
		{uri: "git:/home/me/main.go?%7B%22ref%22%3A%22HEAD%22%7D", wantErr: ErrNotFile, errHas: `"git"`},
		{uri: "https://example.com/x.go", wantErr: ErrNotFile, errHas: `"https"`},
		{uri: "file:///a%00b", wantErr: ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			t.Parallel()
			got, err := PathFromURI(uri.URI(tt.uri))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("PathFromURI(%q) = %q, %v; want error %v", tt.uri, got, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %q does not name %s", err, tt.errHas)
			}
			if got != tt.want {
				t.Errorf("PathFromURI(%q) = %q, want %q", tt.uri, got, tt.want)
			}
		})
	}
}

func TestURIFromPath(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	tests := []struct{ path, want string }{
		{"/home/me/main.go", "file:///home/me/main.go"},
		{"/home/me/my project/a b.go", "file:///home/me/my%20project/a%20b.go"},
		{"/x/100%/y.go", "file:///x/100%25/y.go"},
		{"/tmp/日本/😀.go", "file:///tmp/%E6%97%A5%E6%9C%AC/%F0%9F%98%80.go"},
		{"/p/#hash?query.go", "file:///p/%23hash%3Fquery.go"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			u := URIFromPath(tt.path)
			if string(u) != tt.want {
				t.Errorf("URIFromPath(%q) = %q, want %q", tt.path, u, tt.want)
			}
			if back, err := PathFromURI(u); err != nil || back != tt.path {
				t.Errorf("PathFromURI(URIFromPath(%q)) = %q, %v", tt.path, back, err)
			}
		})
	}
}
