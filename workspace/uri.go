package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/uri"
)

// ErrNotFile reports a URI that names no file on disk (untitled:, git:, …).
var ErrNotFile = errors.New("not a file URI")

// PathFromURI returns the absolute, clean OS path a file: URI names, with its
// percent-encoding decoded. Other schemes give an error wrapping ErrNotFile
// that names the scheme.
func PathFromURI(u uri.URI) (string, error) {
	// Parsing again canonicalises a URI that was built by conversion from a
	// string rather than decoded from JSON.
	p, err := uri.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("uri %q: %w", u, err)
	}
	if s := p.Scheme(); s != "file" {
		return "", fmt.Errorf("uri %q has scheme %q: %w", u, s, ErrNotFile)
	}
	path := p.FsPath()
	if runtime.GOOS != "windows" {
		// A host names a network share, which only Windows opens as a path;
		// "localhost" is this machine (RFC 8089).
		if a := p.Authority(); a != "" && a != "localhost" {
			return "", fmt.Errorf("uri %q names host %q: %w", u, a, ErrNotFile)
		}
		path = p.Path()
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("uri %q: %w", u, ErrInvalidPath)
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("uri %q: path %q is not absolute: %w", u, path, ErrInvalidPath)
	}
	return filepath.Clean(path), nil
}

// URIFromPath returns the file: URI of the absolute path.
func URIFromPath(path string) uri.URI {
	return uri.File(path)
}
