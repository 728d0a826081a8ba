// Package web fetches web pages for the agent's tools, as carefully as a
// tool that reaches outside the workspace must:
//
//   - HTTPS only; plain HTTP only to a loopback address, and only when
//     private addresses are allowed;
//   - no loopback, private, link-local or otherwise special address unless
//     allowed, checked on the address actually dialed: the name is resolved
//     once, every address it gives is checked, and the connection goes to
//     a checked address, so a name that resolves to a public address when
//     checked and a private one when dialed (DNS rebinding) gets nowhere;
//   - a bounded number of redirects, each to a host the caller allows (the
//     hosts the user approved) and checked the same way;
//   - no proxy from the environment, and a cap on the bytes read.
//
// Pages come back as text: HTML converted (see [Text]), other text as it is.
package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html/charset"
)

// Defaults.
const (
	DefaultMaxBytes     = 2 << 20 // of a response body
	DefaultMaxRedirects = 5
	DefaultTimeout      = 30 * time.Second
)

// A Resolver resolves host names; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Config configures a Client.
type Config struct {
	// AllowPrivate lets fetches reach loopback, private and link-local
	// addresses, and plain HTTP reach loopback ones.
	AllowPrivate bool
	// Resolver resolves host names; nil: net.DefaultResolver.
	Resolver Resolver
	// RootCAs are the certificate authorities trusted; nil: the system's.
	RootCAs *x509.CertPool
	// MaxBytes caps a response body; 0: DefaultMaxBytes.
	MaxBytes int64
	// MaxRedirects bounds the redirects of one fetch; 0:
	// DefaultMaxRedirects.
	MaxRedirects int
	// Timeout bounds one fetch; 0: DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent with each request; "": "agentls".
	UserAgent string
}

// A Client fetches pages. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
}

// New returns a client.
func New(cfg Config) *Client {
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "agentls"
	}
	c := &Client{cfg: cfg}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, unchecked
		DialContext:           c.dialPlain,
		DialTLSContext:        c.dialTLS,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	c.http = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c
}

// Errors a fetch reports.
var (
	ErrScheme  = errors.New("only https URLs can be fetched")
	ErrAddress = errors.New("the address is not public")
)

// A RedirectError reports a redirect the fetch did not follow: to a host
// the caller did not allow, or past the limit.
type RedirectError struct {
	To     string
	Reason string
}

func (e *RedirectError) Error() string { return fmt.Sprintf("redirected to %s: %s", e.To, e.Reason) }

// Check parses a URL and checks it can be fetched, before any network use:
// its scheme, that it names a host, and that it carries no credentials.
func (c *Client) Check(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if err := c.checkURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

func (c *Client) checkURL(u *url.URL) error {
	switch {
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%s names no host", u.Redacted())
	case u.User != nil:
		return fmt.Errorf("%s carries credentials; they are never sent", u.Redacted())
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && c.cfg.AllowPrivate && isLoopbackName(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%s: %w (plain http only to localhost, when private addresses are allowed)", u.Redacted(), ErrScheme)
	}
	return fmt.Errorf("%s: %w", u.Redacted(), ErrScheme)
}

// isLoopbackName reports whether host is "localhost" or a loopback
// address literal: the only hosts plain HTTP may go to. The dial checks the
// address again.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// A Page is a fetched page.
type Page struct {
	URL         string // after redirects
	Status      int
	ContentType string // the media type, without parameters
	// Text is the page as text: HTML converted, other text as sent.
	Text string
	// Truncated reports a body longer than the client's cap, Limit: Text is
	// made of its beginning.
	Truncated bool
	Limit     int64
}

// Fetch gets u, following redirects to the hosts in hosts (u's own
// included). The page of any status comes back; a refused address, scheme
// or redirect, a failed connection, or a body that is not text is an
// error.
func (c *Client) Fetch(ctx context.Context, u *url.URL, hosts []string) (*Page, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	if err := c.checkURL(u); err != nil {
		return nil, err
	}
	for redirects := 0; ; redirects++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", c.cfg.UserAgent)
		req.Header.Set("Accept", "text/html, text/plain;q=0.9, */*;q=0.5")
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, unwrapURLError(err)
		}
		if loc := resp.Header.Get("Location"); isRedirect(resp.StatusCode) && loc != "" {
			resp.Body.Close()
			next, err := u.Parse(loc)
			if err != nil {
				return nil, &RedirectError{To: loc, Reason: "not a URL"}
			}
			switch {
			case redirects >= c.cfg.MaxRedirects:
				return nil, &RedirectError{To: next.Redacted(), Reason: fmt.Sprintf("more than %d redirects (a loop?)", c.cfg.MaxRedirects)}
			case !slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, next.Hostname()) }):
				return nil, &RedirectError{To: next.Redacted(), Reason: "another host than the one approved"}
			}
			if err := c.checkURL(next); err != nil {
				return nil, &RedirectError{To: next.Redacted(), Reason: err.Error()}
			}
			u = next
			continue
		}
		defer resp.Body.Close()
		return c.page(u, resp)
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// page reads a response, at most the client's cap, as text.
func (c *Client) page(u *url.URL, resp *http.Response) (*Page, error) {
	p := &Page{URL: u.Redacted(), Status: resp.StatusCode, Limit: c.cfg.MaxBytes}
	ct := resp.Header.Get("Content-Type")
	media, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil {
		media = "" // sniffed below
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p.URL, err)
	}
	if int64(len(body)) > c.cfg.MaxBytes {
		body, p.Truncated = body[:c.cfg.MaxBytes], true
	}
	if media == "" {
		media, _, _ = strings.Cut(http.DetectContentType(body), ";")
	}
	p.ContentType = media
	if !isHTML(media) && !isText(media) {
		return nil, fmt.Errorf("%s is %s, not text; web_fetch reads HTML and text only", p.URL, media)
	}
	// The charset named by the header, or for HTML by its <meta>; UTF-8
	// when none is named.
	r, err := charset.NewReader(bytes.NewReader(body), ct)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.URL, err)
	}
	decoded, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.URL, err)
	}
	text := strings.ToValidUTF8(string(decoded), "\uFFFD")
	if isHTML(media) {
		text = Text(text, u)
	}
	p.Text = text
	return p, nil
}

func isHTML(media string) bool { return media == "text/html" || media == "application/xhtml+xml" }

func isText(media string) bool {
	switch {
	case strings.HasPrefix(media, "text/"), strings.HasSuffix(media, "+json"), strings.HasSuffix(media, "+xml"):
		return true
	}
	switch media {
	case "application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml", "application/toml":
		return true
	}
	return false
}

// unwrapURLError keeps the cause of a failed request and drops the
// method and URL net/http puts around it (the caller names the URL).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// dialPlain dials a plain-HTTP connection: only to loopback addresses, and
// only when private addresses are allowed.
func (c *Client) dialPlain(ctx context.Context, network, addr string) (net.Conn, error) {
	return c.dial(ctx, network, addr, true)
}

// dialTLS dials a TLS connection to a checked address and verifies the
// server's certificate for the host name.
func (c *Client) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.dial(ctx, network, addr, false)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	tc := tls.Client(conn, &tls.Config{ServerName: host, RootCAs: c.cfg.RootCAs, MinVersion: tls.VersionTLS12})
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// dial resolves addr's host once, checks every address it gives, and
// connects to the first that passes; the dialer checks again the address it
// really connects to.
func (c *Client) dial(ctx context.Context, network, addr string, plain bool) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ips, err := c.cfg.Resolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
		}
		for _, ip := range ips {
			if a, ok := netip.AddrFromSlice(ip.IP); ok {
				addrs = append(addrs, a.Unmap().WithZone(ip.Zone))
			}
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("cannot resolve %s: no address", host)
		}
	}
	var refused error
	for _, a := range addrs {
		if err := c.allowed(a, plain); err != nil {
			refused = fmt.Errorf("%s resolves to %s: %w", host, a, err)
			continue
		}
		d := net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			return c.allowed(ap.Addr(), plain)
		}}
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, mustPort(port)).String())
		if err == nil {
			return conn, nil
		}
		if refused == nil {
			refused = err
		}
	}
	return nil, refused
}

func mustPort(s string) uint16 {
	n, _ := strconv.ParseUint(s, 10, 16)
	return uint16(n)
}

// allowed checks an address a fetch may connect to.
func (c *Client) allowed(a netip.Addr, plain bool) error {
	a = a.Unmap()
	switch {
	case plain && !(c.cfg.AllowPrivate && a.IsLoopback()):
		return fmt.Errorf("%w: plain http goes only to loopback addresses, when private addresses are allowed", ErrScheme)
	case c.cfg.AllowPrivate:
		return nil
	case !Public(a):
		return fmt.Errorf("%w (loopback, private, link-local or reserved); a setting can allow it", ErrAddress)
	}
	return nil
}

// special are address ranges that are not on the public internet besides
// those netip names: shared address space, benchmarking, documentation,
// reserved, and the IPv6 translation prefixes that can embed any IPv4
// address.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// Public reports whether a is an address on the public internet: not
// loopback, private, link-local, multicast, unspecified or reserved.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range special {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
