// Command fakegemini serves a scripted Gemini API on loopback, for
// benchmarks, manual runs of agentls without a model, and the editors'
// end-to-end tests:
//
//	fakegemini -script turns.txt -repeat 1000 [-requests requests.jsonl]
//
// It prints the base URL (for GOOGLE_GEMINI_BASE_URL) on the first line of
// its output and serves until interrupted or terminated. The script format
// is geminitest.ParseScript's. With -requests, each request it receives is
// appended to the file as one JSON line (see [loggedRequest]) before it is
// answered, so a test can check what the model was sent.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func main() {
	script := flag.String("script", "", "the scripted turns (geminitest script format)")
	repeat := flag.Int("repeat", 1, "play the script this many times, for repeated runs")
	requests := flag.String("requests", "", "append each request received to this file, one JSON line each")
	flag.Parse()
	src, err := os.ReadFile(*script)
	if err != nil {
		fail(err)
	}
	turns, err := geminitest.ParseScript(string(src))
	if err != nil {
		fail(err)
	}
	srv := geminitest.NewServer(nil)
	defer srv.Close()
	if *requests != "" {
		f, err := os.OpenFile(*requests, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		srv.OnRequest(logRequests(f, func(err error) { fmt.Fprintln(os.Stderr, "fakegemini: -requests:", err) }))
	}
	for range max(1, *repeat) {
		srv.Push(turns...)
	}
	fmt.Println(srv.URL)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakegemini:", err)
	os.Exit(2)
}

// A loggedRequest is one line of the -requests file: a request's method
// (rpc: "streamGenerateContent", "countTokens", …), its model and the
// conversation it carried, in the API's JSON shape.
type loggedRequest struct {
	RPC      string           `json:"rpc"`
	Model    string           `json:"model"`
	Contents []*genai.Content `json:"contents"`
}

// logRequests returns a hook for [geminitest.Server.OnRequest] that writes
// each request to w as one line; errors go to fail.
func logRequests(w io.Writer, fail func(error)) func(geminitest.Request) {
	enc := json.NewEncoder(w)
	return func(r geminitest.Request) {
		if err := enc.Encode(loggedRequest{RPC: r.RPC, Model: r.Model, Contents: r.Contents}); err != nil {
			fail(err)
		}
	}
}
