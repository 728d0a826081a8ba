package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// TestRequestsLogged checks the -requests file: a line per request, in
// order, with the conversation the SDK sent.
func TestRequestsLogged(t *testing.T) {
	var log bytes.Buffer
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("one")), geminitest.Reply(geminitest.Text("two")))
	srv.OnRequest(logRequests(&log, func(err error) { t.Error(err) }))
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPClient: srv.Client(), HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, prompt := range []string{"first prompt", "second prompt"} {
		if _, err := c.Models.GenerateContent(t.Context(), "gemini-3.5-flash", genai.Text(prompt), nil); err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, prompt)
	}
	sc := bufio.NewScanner(&log)
	var got []loggedRequest
	for sc.Scan() {
		var r loggedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if len(got) != len(prompts) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(prompts), log.String())
	}
	for i, r := range got {
		if r.RPC != "generateContent" || r.Model != "gemini-3.5-flash" || len(r.Contents) != 1 || r.Contents[0].Parts[0].Text != prompts[i] {
			t.Errorf("line %d = %+v, want generateContent of %q", i, r, prompts[i])
		}
	}
}
