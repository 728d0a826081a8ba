// Command lspmem measures the memory of a real `agentls serve` process, as
// an editor drives it: it starts the binary on pipes, initializes it and
// reads its resident set (idle), then opens documents with didOpen, waits
// until the server has handled them all (a request sent after them is
// answered), and reads it again. Figures come from /proc/<pid>/status
// (VmRSS now, VmHWM the peak), so it runs on Linux only.
//
//	lspmem -agentls ./agentls [-docs 1000] [-lines 1000]
//
// With -big MB it opens one document of that many megabytes instead, and
// times the didOpen (from the first byte sent to the answer of a request
// sent after it) and 200 one-character didChanges in its middle; the
// frames are encoded before the clock starts.
//
//	lspmem -agentls ./agentls -big 200
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("agentls", "agentls", "the agentls binary")
	docs := flag.Int("docs", 1000, "documents to open")
	lines := flag.Int("lines", 1000, "lines a document")
	big := flag.Int("big", 0, "open one document of this many MB instead, and time changes to it")
	flag.Parse()
	run := run
	if *big > 0 {
		run = func(bin string, _, _ int) error { return runBig(bin, *big) }
	}
	if err := run(*bin, *docs, *lines); err != nil {
		fmt.Fprintln(os.Stderr, "lspmem:", err)
		os.Exit(1)
	}
}

// start starts the server in root and initializes it.
func start(bin, root string) (*exec.Cmd, *client, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "GEMINI_API_KEY=unused")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	c := &client{in: stdin, out: bufio.NewReader(stdout)}
	if _, err := c.call(1, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": uri(root), "capabilities": map[string]any{}}); err != nil {
		cmd.Process.Kill()
		return nil, nil, err
	}
	c.notify("initialized", map[string]any{})
	time.Sleep(100 * time.Millisecond) // let start-up garbage settle
	return cmd, c, nil
}

func uri(p string) string { return "file://" + filepath.ToSlash(p) }

// stop shuts the server down.
func stop(cmd *exec.Cmd, c *client) error {
	if _, err := c.call(3, "shutdown", nil); err != nil {
		return err
	}
	c.notify("exit", nil)
	c.in.(io.Closer).Close()
	return cmd.Wait()
}

func run(bin string, docs, lines int) error {
	root, err := os.MkdirTemp("", "lspmem")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	cmd, c, err := start(bin, root)
	if err != nil {
		return err
	}
	defer cmd.Process.Kill()
	idle, err := status(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle after initialize:  VmRSS %6.1f MiB  VmHWM %6.1f MiB\n", mib(idle["VmRSS"]), mib(idle["VmHWM"]))

	textBytes := 0
	start := time.Now()
	for i := range docs {
		text := docText(i, lines)
		textBytes += len(text)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri(filepath.Join(root, fmt.Sprintf("pkg%d", i%30), fmt.Sprintf("file%d.go", i))), "languageId": "go", "version": 1, "text": text}})
	}
	// Notifications are handled in order before the next request: its
	// answer means every document is open.
	if _, err := c.call(2, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri(filepath.Join(root, "pkg0", "file0.go"))},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}); err != nil {
		return err
	}
	took := time.Since(start)
	open, err := status(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("%d documents open:    VmRSS %6.1f MiB  VmHWM %6.1f MiB  (%d lines each, %.1f MiB of text, sent and handled in %v)\n",
		docs, mib(open["VmRSS"]), mib(open["VmHWM"]), lines, float64(textBytes)/(1<<20), took.Round(time.Millisecond))

	return stop(cmd, c)
}

func runBig(bin string, mb int) error {
	root, err := os.MkdirTemp("", "lspmem")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	cmd, c, err := start(bin, root)
	if err != nil {
		return err
	}
	defer cmd.Process.Kill()
	var b strings.Builder
	for line := 0; b.Len() < mb<<20; line++ {
		fmt.Fprintf(&b, "\tv%d := compute(%d, %q) // line %d\n", line, line*7, "日本", line)
	}
	text := b.String()
	lines := strings.Count(text, "\n")
	doc := uri(filepath.Join(root, "big.go"))
	open, err := frame(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": doc, "languageId": "go", "version": 1, "text": text}}})
	if err != nil {
		return err
	}
	b.Reset()
	text = ""
	const changes = 200
	var edits [][]byte
	for i := range changes {
		line := lines/2 + i
		f, err := frame(map[string]any{"method": "textDocument/didChange", "params": map[string]any{
			"textDocument":   map[string]any{"uri": doc, "version": i + 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": line, "character": 5}, "end": map[string]any{"line": line, "character": 5}}, "text": "x"}},
		}})
		if err != nil {
			return err
		}
		edits = append(edits, f)
	}
	action := map[string]any{
		"textDocument": map[string]any{"uri": doc},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}

	cpu0, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := c.in.Write(open); err != nil {
		return err
	}
	if _, err := c.call(2, "textDocument/codeAction", action); err != nil {
		return err
	}
	opened := time.Since(start)
	cpu1, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return err
	}
	open = nil
	st, err := status(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("one %d MiB document (%d lines): didOpen handled in %v (server CPU %v: user %v, system %v); VmRSS %6.1f MiB (%.2f× the text), VmHWM %6.1f MiB\n",
		mb, lines, opened.Round(time.Millisecond), (cpu1.user + cpu1.sys - cpu0.user - cpu0.sys).Round(time.Millisecond),
		(cpu1.user - cpu0.user).Round(time.Millisecond), (cpu1.sys - cpu0.sys).Round(time.Millisecond), mib(st["VmRSS"]), mib(st["VmRSS"])/float64(mb), mib(st["VmHWM"]))

	start = time.Now()
	for _, f := range edits {
		if _, err := c.in.Write(f); err != nil {
			return err
		}
	}
	if _, err := c.call(4, "textDocument/codeAction", action); err != nil {
		return err
	}
	took := time.Since(start)
	st, err = status(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("  %d one-character didChanges: %v each (with the request after them); VmRSS %6.1f MiB, VmHWM %6.1f MiB\n",
		changes, (took / changes).Round(time.Microsecond), mib(st["VmRSS"]), mib(st["VmHWM"]))
	return stop(cmd, c)
}

// frame encodes a notification as a frame.
func frame(msg map[string]any) ([]byte, error) {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(b)), b...), nil
}

// docText is a Go-like document, different for each i (as in the
// workspace package's BenchmarkOpen1000Docs).
func docText(i, lines int) string {
	var b strings.Builder
	for line := range lines {
		fmt.Fprintf(&b, "\tv%d := compute(%d, %q) // line %d\n", line, i, "日本", line)
	}
	return b.String()
}

type client struct {
	in  io.Writer
	out *bufio.Reader
}

func (c *client) send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

func (c *client) notify(method string, params any) error {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	return c.send(m)
}

// call sends a request and reads frames until its answer; the server's
// own requests and notifications are skipped.
func (c *client) call(id int, method string, params any) (json.RawMessage, error) {
	m := map[string]any{"id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if err := c.send(m); err != nil {
		return nil, err
	}
	for {
		body, err := c.frame()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			return nil, err
		}
		if resp.Method != "" || resp.ID == nil || *resp.ID != id {
			continue
		}
		if len(resp.Error) > 0 {
			return nil, fmt.Errorf("%s: %s", method, resp.Error)
		}
		return resp.Result, nil
	}
}

func (c *client) frame() ([]byte, error) {
	n := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if line == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(c.out, body)
	return body, err
}

// status returns the memory fields of /proc/<pid>/status, in bytes.
func status(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "Vm") {
			continue
		}
		f := strings.Fields(value)
		if len(f) == 2 && f[1] == "kB" {
			kb, _ := strconv.ParseInt(f[0], 10, 64)
			out[name] = kb << 10
		}
	}
	return out, nil
}

// cpu is the user and system time a process has used.
type cpu struct{ user, sys time.Duration }

// cpuTime returns the user and system time the process has used
// (/proc/<pid>/stat, in clock ticks of 10 ms).
func cpuTime(pid int) (cpu, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpu{}, err
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return cpu{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return cpu{time.Duration(utime) * 10 * time.Millisecond, time.Duration(stime) * 10 * time.Millisecond}, nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
