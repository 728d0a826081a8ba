// Command fakegemini serves a scripted Gemini API on loopback, for
// benchmarks and manual runs of agentls without a model:
//
//	fakegemini -script turns.txt -repeat 1000
//
// It prints the base URL (for GOOGLE_GEMINI_BASE_URL) on the first line of
// its output and serves until interrupted or terminated. The script format
// is geminitest.ParseScript's.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func main() {
	script := flag.String("script", "", "the scripted turns (geminitest script format)")
	repeat := flag.Int("repeat", 1, "play the script this many times, for repeated runs")
	flag.Parse()
	src, err := os.ReadFile(*script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegemini:", err)
		os.Exit(2)
	}
	turns, err := geminitest.ParseScript(string(src))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegemini:", err)
		os.Exit(2)
	}
	srv := geminitest.NewServer(nil)
	defer srv.Close()
	for range max(1, *repeat) {
		srv.Push(turns...)
	}
	fmt.Println(srv.URL)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}
