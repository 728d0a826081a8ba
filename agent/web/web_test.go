package web_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/web"
)

// resolver answers from a table, never from DNS, and counts lookups.
type resolver struct {
	mu    sync.Mutex
	addrs map[string][]string // host → addresses, one list per lookup, the last repeated
	calls map[string]int
}

func newResolver(table map[string][]string) *resolver {
	return &resolver{addrs: table, calls: map[string]int{}}
}

func (r *resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, ok := r.addrs[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := min(r.calls[host], len(list)-1)
	r.calls[host]++
	return []net.IPAddr{{IP: net.ParseIP(list[n])}}, nil
}

func (r *resolver) lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// tlsServer is an HTTPS server on 127.0.0.1 whose certificate names
// example.com, and a client config that trusts it and resolves
// example.com (and rebound.example.com, first to 127.0.0.1 then to 10.1.2.3) to
// it.
func tlsServer(t *testing.T, h http.Handler) (*httptest.Server, web.Config, *resolver) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // clients that stop reading are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	res := newResolver(map[string][]string{
		"example.com":         {"127.0.0.1"},
		"mapped.example.com":  {"::ffff:127.0.0.1"},
		"rebound.example.com": {"127.0.0.1", "10.1.2.3"},
	})
	return srv, web.Config{Resolver: res, RootCAs: pool}, res
}

func port(srv *httptest.Server) string {
	u, _ := url.Parse(srv.URL)
	return u.Port()
}

func fetch(t *testing.T, c *web.Client, raw string) (*web.Page, error) {
	t.Helper()
	u, err := c.Check(raw)
	if err != nil {
		return nil, err
	}
	return c.Fetch(t.Context(), u, []string{u.Hostname()})
}

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<html><head><title>Hi</title></head><body><p>Hello from "+r.Host+"</p></body></html>")
}

// A name that resolves to a loopback address is refused after resolution,
// unless the setting allows private addresses; then the page comes back.
func TestPrivateAddresses(t *testing.T) {
	t.Parallel()
	srv, cfg, _ := tlsServer(t, http.HandlerFunc(hello))
	p := port(srv)
	refused := web.New(cfg)
	for _, raw := range []string{
		"https://example.com:" + p + "/",        // a name that resolves to 127.0.0.1
		"https://127.0.0.1:" + p + "/",          // a literal
		"https://mapped.example.com:" + p + "/", // an IPv4-mapped IPv6 loopback
		"https://[::ffff:7f00:1]:" + p + "/",    // the same, literal
	} {
		_, err := fetch(t, refused, raw)
		if !errors.Is(err, web.ErrAddress) {
			t.Errorf("%s: err = %v, want ErrAddress", raw, err)
		}
	}
	cfg.AllowPrivate = true
	page, err := fetch(t, web.New(cfg), "https://example.com:"+p+"/doc")
	if err != nil {
		t.Fatal(err)
	}
	if page.Status != 200 || page.ContentType != "text/html" || page.Text != "Title: Hi\n\nHello from example.com:"+p+"\n" {
		t.Errorf("page = %+v", page)
	}
}

// The name is resolved once per connection and the checked address is the
// one dialed: a resolver that rebinds after the first answer is not asked
// again.
func TestNoRebinding(t *testing.T) {
	t.Parallel()
	srv, cfg, res := tlsServer(t, http.HandlerFunc(hello))
	cfg.AllowPrivate = true
	c := web.New(cfg)
	page, err := fetch(t, c, "https://rebound.example.com:"+port(srv)+"/")
	if err != nil {
		t.Fatal(err) // a second lookup would give 10.1.2.3, where nothing listens
	}
	if !strings.Contains(page.Text, "Hello") || res.lookups("rebound.example.com") != 1 {
		t.Errorf("page %q after %d lookups, want one", page.Text, res.lookups("rebound.example.com"))
	}
}

func TestSchemes(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(http.HandlerFunc(hello))
	t.Cleanup(plain.Close)
	res := newResolver(map[string][]string{"localhost": {"10.0.0.7"}, "example.com": {"127.0.0.1"}})
	allowed := web.New(web.Config{AllowPrivate: true, Resolver: res})
	refused := web.New(web.Config{Resolver: res})
	u, _ := url.Parse(plain.URL)
	for _, tc := range []struct {
		c    *web.Client
		raw  string
		want string // "" for success
	}{
		{refused, plain.URL, "only https URLs can be fetched"},
		{allowed, plain.URL, ""},
		{allowed, "http://example.com:" + u.Port(), "plain http only to localhost"},
		{allowed, "http://localhost:" + u.Port(), "plain http goes only to loopback addresses"}, // resolves to 10.0.0.7
		{allowed, "ftp://example.com/x", "only https URLs can be fetched"},
		{allowed, "file:///etc/passwd", "names no host"},
		{allowed, "https://user:secret@example.com/", "carries credentials"},
		{allowed, "https:///x", "names no host"},
	} {
		_, err := fetch(t, tc.c, tc.raw)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.raw, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.raw, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the error shows the password: %v", tc.raw, err)
		}
	}
}

func TestPublic(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "93.184.216.34": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.5.4": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "::1": false, "fe80::1": false, "fc00::1": false, "::ffff:10.0.0.1": false,
		"64:ff9b::a00:1": false, "224.0.0.1": false, "255.255.255.255": false, "192.0.2.1": false,
	} {
		if got := web.Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}

// A 50 MB page is read up to the cap, and the rest is never read.
func TestHugePage(t *testing.T) {
	t.Parallel()
	const size = 50 << 20
	srv, cfg, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for sent := 0; sent < size; sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return // the client stopped reading
			}
		}
	}))
	cfg.AllowPrivate = true
	cfg.MaxBytes = 1 << 20
	page, err := fetch(t, web.New(cfg), "https://example.com:"+port(srv)+"/big.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !page.Truncated || len(page.Text) != 1<<20 || page.Limit != 1<<20 {
		t.Errorf("truncated %v, %d bytes of text, limit %d; want the first MB", page.Truncated, len(page.Text), page.Limit)
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/loop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.test/steal", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/downgrade", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/", http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusPermanentRedirect) })
	mux.HandleFunc("/", hello)
	srv, cfg, _ := tlsServer(t, mux)
	cfg.AllowPrivate = true
	c := web.New(cfg)
	base := "https://example.com:" + port(srv)
	for path, want := range map[string]string{
		"/loop/0":    "more than 5 redirects",
		"/elsewhere": "redirected to https://evil.test/steal: another host than the one approved",
		"/downgrade": "only https URLs can be fetched",
		"/moved":     "",
	} {
		page, err := fetch(t, c, base+path)
		var re *web.RedirectError
		switch {
		case want == "" && (err != nil || !strings.Contains(page.Text, "Hello")):
			t.Errorf("%s: %v", path, err)
		case want != "" && (!errors.As(err, &re) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: err = %v, want a RedirectError with %q", path, err, want)
		}
	}
}

func TestContentTypes(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"a":1}`))
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no header: sniffed
		w.Write([]byte("<!DOCTYPE html><p>sniffed</p>"))
	})
	mux.HandleFunc("/404", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	srv, cfg, _ := tlsServer(t, mux)
	cfg.AllowPrivate = true
	c := web.New(cfg)
	base := "https://example.com:" + port(srv)
	if _, err := fetch(t, c, base+"/png"); err == nil || !strings.Contains(err.Error(), "is image/png, not text") {
		t.Errorf("png: err = %v", err)
	}
	for path, want := range map[string]string{"/latin1": "café", "/json": `{"a":1}`, "/sniffed": "sniffed\n", "/404": "no such page\n"} {
		page, err := fetch(t, c, base+path)
		if err != nil || page.Text != want {
			t.Errorf("%s: %+v, %v; want text %q", path, page, err, want)
		}
	}
}
