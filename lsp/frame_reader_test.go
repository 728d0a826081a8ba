package lsp

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ReadFrameBody reads one Content-Length frame from r and returns its body:
// the tests' own reader of what the server writes, independent of
// lsp/transport's. It is exported for the tests of package lsp_test.
func ReadFrameBody(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}
