package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

var update = flag.Bool("update", false, "rewrite the want/events sections of scenario files")

// TestScenarios runs every testdata/scenarios/*.txtar file. A scenario is a
// txtar archive:
//
//	-- flags --       JSON: client, settings, folders, open files, what to run (see scenarioFlags)
//	-- model --       the model's turns (geminitest.ParseScript)
//	-- editor --      the editor's answers and the user's actions, in order (see parseSteps)
//	-- want/<file> -- the file's final text: the editor's buffer if open, else the disk
//	-- want/events -- the transcript of what the server sent (see transcript)
//	-- <path> --      any other section is a workspace file
//
// Flags may add symlinks (links), and the editor section may repoint one
// (link), to play a repository's links on a real disk.
// The server runs over a real jsonrpc2 stream pair, the model is reached
// through the real genai SDK against geminitest, and the test editor
// (lsptest) applies edits like an editor. Positions in flags are LSP's:
// 0-based "line:character-line:character".
func TestScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			sc := parseScenario(t, file)
			if sc.flags.Skip != "" {
				t.Skip(sc.flags.Skip)
			}
			if len(sc.flags.Links) > 0 && runtime.GOOS == "windows" {
				t.Skip("symlinks need privileges on Windows")
			}
			sc.run(t)
		})
	}
}

// scenarioFlags are a scenario's settings.
type scenarioFlags struct {
	// Client is the capability preset: full (VS Code-like, the default),
	// nvim07, nvim012 (with their clientInfo), eglot or minimal.
	Client string `json:"client"`
	// Plugin adds what the agentls plugins declare: documentChanges,
	// change annotations and experimental.agentls.hunkReview.
	Plugin bool `json:"plugin"`
	// Without removes capabilities from the preset: applyEdit,
	// documentChanges, changeAnnotations, create, workDoneProgress,
	// showDocument, configuration.
	Without []string `json:"without"`
	// Init is initializationOptions; Configuration answers
	// workspace/configuration.
	Init          json.RawMessage `json:"init"`
	Configuration json.RawMessage `json:"configuration"`
	// Folders are the workspace folders, as directories of the scenario
	// (default "."); AddFolders come later with didChangeWorkspaceFolders.
	Folders    []string `json:"folders"`
	AddFolders []string `json:"addFolders"`
	// Open lists the files the editor opens before the run; Buffers opens
	// files with unsaved text (not what the disk holds).
	Open    []string          `json:"open"`
	Buffers map[string]string `json:"buffers"`
	// Run starts a run with agentls.run; Action asks for code actions and
	// executes the one titled Choose.
	Run    *runFlags    `json:"run"`
	Action *actionFlags `json:"action"`
	// UserDir is a directory of the scenario that is the user's agentls
	// folder (skills, AGENTS.md, trusted folders); "": none. Trust lists
	// the folders the user trusts as they are, as directories of the
	// scenario.
	UserDir string   `json:"userDir"`
	Trust   []string `json:"trust"`
	// Settle is the server's SettleTimeout (default 300ms).
	Settle string `json:"settle"`
	// DiagWait is the server's DiagnosticsWait (default 2s).
	DiagWait string `json:"diagWait"`
	// Clock "fake" gives the server a clock whose time passes only at the
	// editor's tick steps.
	Clock string `json:"clock"`
	// Diagnostics are sent (agentls/diagnostics) before the run, for open
	// files at their versions: file → diagnostics as the diagnostics step
	// writes them.
	Diagnostics map[string][]string `json:"diagnostics"`
	// ProgressRate checks the bound on $/progress reports.
	ProgressRate bool `json:"progressRate"`
	// Usage says the model section gives every turn's usage: the usage
	// line of the progress end is kept, not normalized.
	Usage bool `json:"usage"`
	// Links are symlinks made after the files: path → target, as
	// os.Symlink takes it (relative to the link's folder, or absolute
	// with $WORK for the scenario's folder).
	Links map[string]string `json:"links"`
	// Skip skips the scenario, saying why.
	Skip string `json:"skip"`
}

type runFlags struct {
	Prompt string `json:"prompt"`
	File   string `json:"file"`
	Range  string `json:"range"`
	Token  string `json:"token"` // the client's workDoneToken
}

type actionFlags struct {
	File        string     `json:"file"`
	Range       string     `json:"range"`
	Diagnostics []diagFlag `json:"diagnostics"`
	Only        []string   `json:"only"`
	Choose      string     `json:"choose"`
	// Instruction is what a plugin would ask the user for (ask:
	// "instruction").
	Instruction string `json:"instruction"`
}

type diagFlag struct {
	Range    string `json:"range"`
	Message  string `json:"message"`
	Source   string `json:"source"`
	Severity int    `json:"severity"`
}

type scenario struct {
	path       string
	archive    *txtar.Archive
	flags      scenarioFlags
	files      map[string]string
	model      []geminitest.Turn
	steps      []step
	want       map[string]string
	wantEvents *string
}

func parseScenario(t *testing.T, path string) *scenario {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario{path: path, archive: ar, files: map[string]string{}, want: map[string]string{}}
	for _, f := range ar.Files {
		data := string(f.Data)
		switch {
		case f.Name == "flags":
			if err := json.Unmarshal(f.Data, &sc.flags); err != nil {
				t.Fatalf("flags: %v", err)
			}
		case f.Name == "model":
			if sc.model, err = geminitest.ParseScript(data); err != nil {
				t.Fatalf("model: %v", err)
			}
		case f.Name == "editor":
			if sc.steps, err = parseSteps(data); err != nil {
				t.Fatalf("editor: %v", err)
			}
		case f.Name == "want/events":
			sc.wantEvents = &data
		case strings.HasPrefix(f.Name, "want/"):
			sc.want[strings.TrimPrefix(f.Name, "want/")] = data
		default:
			sc.files[f.Name] = data
		}
	}
	return sc
}

// A scenarioRun is a scenario being played.
type scenarioRun struct {
	sc    *scenario
	t     *testing.T
	ed    *lsptest.Editor
	gem   *geminitest.Server
	dir   string // the scenario's files
	cache string // the server's cache directory
	play  *player
	clock *fakeClock // the server's clock with "clock": "fake"; nil: the real one
	start time.Time
	runID chan string // holds the run's id once it started
	// reverts are the agentls.revert commands of revert steps, running.
	reverts sync.WaitGroup
}

func (sc *scenario) run(t *testing.T) {
	ctx := t.Context()
	r := &scenarioRun{sc: sc, t: t, dir: t.TempDir(), cache: t.TempDir(), runID: make(chan string, 1)}
	for name, data := range sc.files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range append(sc.flags.Folders, sc.flags.AddFolders...) {
		os.MkdirAll(filepath.Join(r.dir, f), 0o755)
	}
	for _, name := range slices.Sorted(maps.Keys(sc.flags.Links)) {
		if err := r.link(name, sc.flags.Links[name]); err != nil {
			t.Fatalf("flags: links: %v", err)
		}
	}
	r.gem = geminitest.NewServer(t, sc.model...)
	settle := 300 * time.Millisecond
	if sc.flags.Settle != "" {
		var err error
		if settle, err = time.ParseDuration(sc.flags.Settle); err != nil {
			t.Fatalf("settle: %v", err)
		}
	}
	var userDir string
	if sc.flags.UserDir != "" {
		userDir = filepath.Join(r.dir, sc.flags.UserDir)
		// Trust as the user gives it: the folder's configuration as it is.
		eng := policy.New(filepath.Join(userDir, "policy.toml"))
		for _, f := range sc.flags.Trust {
			folder := filepath.Join(r.dir, f)
			st, err := eng.TrustState(folder)
			if err == nil {
				err = eng.Trust(folder, st.Hash)
			}
			if err != nil {
				t.Fatalf("trust %s: %v", f, err)
			}
		}
	}
	cfg := lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: r.gem.URL, Model: model,
				Getenv: func(string) string { return "" }})
		},
		Version:       "test",
		CacheDir:      r.cache,
		SettleTimeout: settle,
		UserConfigDir: userDir,
	}
	if sc.flags.DiagWait != "" {
		var err error
		if cfg.DiagnosticsWait, err = time.ParseDuration(sc.flags.DiagWait); err != nil {
			t.Fatalf("diagWait: %v", err)
		}
	}
	switch sc.flags.Clock {
	case "":
	case "fake":
		r.clock = newFakeClock()
		cfg.After = r.clock.After
	default:
		t.Fatalf("flags: unknown clock %q", sc.flags.Clock)
	}
	srv := lsp.New(cfg)
	serverSide, clientSide := jsonrpc2.NewChannelStreamPair(64)
	sctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStream(sctx, serverSide, stop) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	r.ed = lsptest.New(t, clientSide)
	if len(sc.flags.Configuration) > 0 {
		r.ed.Configuration = sc.flags.Configuration
	}
	r.play = newPlayer(r)
	r.ed.Intercept = r.play.intercept

	var folders []string
	for _, f := range cmpOr(sc.flags.Folders, []string{"."}) {
		folders = append(folders, filepath.Join(r.dir, f))
	}
	var init any
	if len(sc.flags.Init) > 0 {
		init = sc.flags.Init
	}
	r.ed.InitializeFolders(ctx, folders, r.caps(), init)
	if len(sc.flags.AddFolders) > 0 {
		var added []protocol.WorkspaceFolder
		for _, f := range sc.flags.AddFolders {
			added = append(added, protocol.WorkspaceFolder{URI: r.uri(f), Name: filepath.Base(f)})
		}
		r.ed.Server.DidChangeWorkspaceFolders(ctx, &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{Added: added}})
	}
	for _, name := range sc.flags.Open {
		r.ed.Open(ctx, filepath.Join(r.dir, filepath.FromSlash(name)), sc.files[name])
	}
	for _, name := range slices.Sorted(maps.Keys(sc.flags.Buffers)) {
		r.ed.Open(ctx, filepath.Join(r.dir, filepath.FromSlash(name)), sc.flags.Buffers[name])
	}
	for _, name := range slices.Sorted(maps.Keys(sc.flags.Diagnostics)) {
		if err := r.sendDiagnostics(ctx, append([]string{name}, sc.flags.Diagnostics[name]...)); err != nil {
			t.Fatalf("flags: diagnostics: %v", err)
		}
	}

	r.start = time.Now()
	played := make(chan struct{})
	pctx, stopPlay := context.WithTimeout(ctx, scenarioDeadline)
	defer stopPlay()
	go func() {
		defer close(played)
		r.play.steps(pctx, sc.steps)
	}()
	var header []string
	switch {
	case sc.flags.Run != nil:
		r.startRun(ctx)
	case sc.flags.Action != nil:
		header = r.codeAction(ctx)
	default:
		t.Fatal("flags: neither run nor action")
	}
	r.waitEnd()
	if sc.reverts() {
		<-played // a revert comes after the run's end
		r.reverts.Wait()
	}
	stopPlay() // steps still waiting now wait for what will not come
	<-played
	r.play.check()

	got := r.transcript(header)
	r.compareEvents(got)
	r.compareFiles()
}

// link makes name a symlink to target ($WORK: the scenario's folder),
// replacing what name was.
func (r *scenarioRun) link(name, target string) error {
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Symlink(strings.ReplaceAll(filepath.FromSlash(target), "$WORK", r.dir), p)
}

// runEnded waits, like waitEnd, for the run's last word, or for ctx's end.
func (r *scenarioRun) runEnded(ctx context.Context) error {
	_, begin, err := r.ed.Next(ctx, 0, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && progressOf(m).Kind == "begin" ||
			m.Method == protocol.MethodWindowLogMessage && strings.HasSuffix(logText(m), ": started")
	})
	if err != nil {
		return err
	}
	token := progressOf(begin).Token
	title := strings.TrimSuffix(logText(begin), ": started")
	_, _, err = r.ed.Next(ctx, 0, func(m lsptest.Message) bool {
		if begin.Method == protocol.MethodProgress {
			return m.Method == protocol.MethodProgress && progressOf(m).Kind == "end" && progressOf(m).Token == token
		}
		return m.Method == protocol.MethodWindowLogMessage && strings.HasPrefix(logText(m), title+": finished: ")
	})
	return err
}

// waitEnd waits for the run's last word: the end of its progress, or, for a
// client without work-done progress, the log line that ends it. The run's
// progress is the first to begin; subagents' come later.
func (r *scenarioRun) waitEnd() {
	begin := r.ed.WaitFor("the run's progress", func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && progressOf(m).Kind == "begin" ||
			m.Method == protocol.MethodWindowLogMessage && strings.HasSuffix(logText(m), ": started")
	})
	if begin.Method == protocol.MethodProgress {
		token := progressOf(begin).Token
		r.ed.WaitFor("the run's progress end", func(m lsptest.Message) bool {
			return m.Method == protocol.MethodProgress && progressOf(m).Kind == "end" && progressOf(m).Token == token
		})
		return
	}
	title := strings.TrimSuffix(logText(begin), ": started")
	r.ed.WaitFor("the run's last log line", func(m lsptest.Message) bool {
		return m.Method == protocol.MethodWindowLogMessage && strings.HasPrefix(logText(m), title+": finished: ")
	})
}

func (r *scenarioRun) compareEvents(got string) {
	if r.sc.wantEvents == nil && !*update {
		r.t.Errorf("no want/events section; got:\n%s", got)
		return
	}
	if *update {
		r.updateEvents(got)
		return
	}
	if diff := cmp.Diff(*r.sc.wantEvents, got); diff != "" {
		r.t.Errorf("transcript (-want +got):\n%s\nrun with -update to accept", diff)
	}
}

// updateEvents rewrites the scenario file's want/events section.
func (r *scenarioRun) updateEvents(got string) {
	ar := r.sc.archive
	found := false
	for i := range ar.Files {
		if ar.Files[i].Name == "want/events" {
			ar.Files[i].Data = []byte(got)
			found = true
		}
	}
	if !found {
		ar.Files = append(ar.Files, txtar.File{Name: "want/events", Data: []byte(got)})
	}
	if err := os.WriteFile(r.sc.path, txtar.Format(ar), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *scenarioRun) compareFiles() {
	for name, want := range r.sc.want {
		if name == "events" {
			continue
		}
		path := filepath.Join(r.dir, filepath.FromSlash(name))
		got, open := r.ed.Buffer(workspace.URIFromPath(path))
		if !open {
			b, err := os.ReadFile(path)
			if err != nil {
				got = "(absent)\n"
			} else {
				got = string(b)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			r.t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// reverts reports whether the scenario reverts its run.
func (sc *scenario) reverts() bool {
	for _, s := range sc.steps {
		if s.words[0] == "revert" {
			return true
		}
	}
	return false
}

func cmpOr[T any](a, b []T) []T {
	if len(a) > 0 {
		return a
	}
	return b
}
