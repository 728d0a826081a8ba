package tools_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/agent/web"
)

// names resolves host names from a table: no DNS in tests.
type names map[string]string

func (n names) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := n[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// site is an HTTPS server on 127.0.0.1 that example.com resolves to, and
// counts the requests it serves.
type site struct {
	srv  *httptest.Server
	hits atomic.Int32
	base string // https://example.com:PORT
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>Doc</title><h1>Install</h1><p>Run <code>go install</code>.</p><script>steal()</script>`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("y", 4095) + "\n")
		for sent := 0; sent < 50<<20; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	u, _ := url.Parse(s.srv.URL)
	s.base = "https://example.com:" + u.Port()
	return s
}

// client is web_fetch's client for the site; private: the setting that
// lets it reach 127.0.0.1.
func (s *site) client(private bool) *web.Client {
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	return web.New(web.Config{Resolver: names{"example.com": "127.0.0.1"}, RootCAs: pool, AllowPrivate: private})
}

func TestWebFetch(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	no := func(agent.Approval) (bool, error) { return false, nil }
	for _, tc := range []struct {
		name     string
		private  bool
		approver func(agent.Approval) (bool, error) // nil: allow
		args     map[string]any
		want     func(out string, isErr bool) bool
		asked    []agent.Approval
		hits     int32
	}{{
		name: "allowed by the setting and the user", private: true,
		args: map[string]any{"url": s.base + "/doc"},
		want: func(out string, isErr bool) bool {
			return !isErr && strings.Contains(out, `<page url="`+s.base+`/doc" status="200" type="text/html">`+"\nTitle: Doc\n\n# Install\n\nRun go install.\n</page>") &&
				!strings.Contains(out, "steal")
		},
		asked: []agent.Approval{{Tool: "web_fetch", Description: "Fetch " + s.base + "/doc", Hosts: []string{"example.com"}, Rule: "example.com"}},
		hits:  1,
	}, {
		name: "a name that resolves to 127.0.0.1, without the setting",
		args: map[string]any{"prompt": "Summarize " + s.base + "/doc."},
		want: func(out string, isErr bool) bool {
			return isErr && strings.Contains(out, `error="refused: example.com resolves to 127.0.0.1: the address is not public`)
		},
		asked: []agent.Approval{{Tool: "web_fetch", Description: "Fetch " + s.base + "/doc", Hosts: []string{"example.com"}, Rule: "example.com"}},
	}, {
		name: "the user says no", private: true, approver: no,
		args: map[string]any{"url": s.base + "/doc"},
		want: func(out string, isErr bool) bool {
			return isErr && strings.HasPrefix(out, "the user denied running web_fetch")
		},
		asked: []agent.Approval{{Tool: "web_fetch", Description: "Fetch " + s.base + "/doc", Hosts: []string{"example.com"}, Rule: "example.com"}},
	}, {
		name: "no URL: nothing is asked",
		args: map[string]any{"prompt": "the docs of Go"},
		want: func(out string, isErr bool) bool { return isErr && strings.HasPrefix(out, "no URL to fetch") },
	}, {
		name: "a private address literal, refused before asking",
		args: map[string]any{"url": "http://169.254.169.254/latest/meta-data/"},
		want: func(out string, isErr bool) bool {
			return isErr && strings.Contains(out, "only https URLs can be fetched")
		},
	}, {
		name: "a 50 MB page", private: true,
		args: map[string]any{"url": s.base + "/big"},
		want: func(out string, isErr bool) bool {
			return !isErr && strings.Contains(out, "[The page is larger than 2048 KB; only its beginning was read.]") && len(out) < 110<<10
		},
		asked: []agent.Approval{{Tool: "web_fetch", Description: "Fetch " + s.base + "/big", Hosts: []string{"example.com"}, Rule: "example.com"}},
		hits:  1,
	}, {
		name: "a redirect loop", private: true,
		args: map[string]any{"url": s.base + "/loop"},
		want: func(out string, isErr bool) bool {
			return isErr && strings.Contains(out, "redirected to "+s.base+"/loop: more than 5 redirects (a loop?)")
		},
		asked: []agent.Approval{{Tool: "web_fetch", Description: "Fetch " + s.base + "/loop", Hosts: []string{"example.com"}, Rule: "example.com"}},
		hits:  6,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.hits.Load()
			ap := &fakeApprover{answer: tc.approver}
			tr := play(t, script{
				env:   func(e *tools.Env) { e.Web = s.client(tc.private) },
				cfg:   func(c *agent.Config) { c.Approver = ap },
				calls: []*genai.FunctionCall{call("web_fetch", tc.args)},
			})
			r := tr.replies(t)[0].Response
			out, _ := r["output"].(string)
			isErr := false
			if e, ok := r["error"].(string); ok {
				out, isErr = e, true
			}
			if !tc.want(out, isErr) {
				t.Errorf("result (error %v):\n%s", isErr, out)
			}
			if diff := cmp.Diff(tc.asked, ap.asked(), cmpopts.IgnoreFields(agent.Approval{}, "RunID", "CallID")); diff != "" {
				t.Errorf("approvals (-want +got):\n%s", diff)
			}
			if got := s.hits.Load() - before; got != tc.hits {
				t.Errorf("the site served %d requests, want %d", got, tc.hits)
			}
		})
	}
}
