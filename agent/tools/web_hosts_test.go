package tools

import (
	"net/url"
	"slices"
	"testing"
)

// The hosts a fetch asks about, and that host rules match, are named as DNS
// names them: a look-alike of a trusted host (Cyrillic o's) does not read
// as it, and the same host in any case is one.
func TestHostsOf(t *testing.T) {
	var urls []*url.URL
	for _, s := range []string{"https://gооgle.com/x", "https://Google.com/a", "https://google.com:8443/b"} {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	if got, want := hostsOf(urls), []string{"xn--ggle-55da.com", "google.com"}; !slices.Equal(got, want) {
		t.Errorf("hostsOf = %q, want %q", got, want)
	}
}
