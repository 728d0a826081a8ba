package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"
)

// A Store keeps the sessions of every workspace folder:
// <dir>/<hash of the folder>/<session id>.jsonl. It is safe for concurrent
// use.
type Store struct {
	dir string
	b   backend
	now func() time.Time

	mu   sync.Mutex
	busy map[string]string // session id → what holds it (a run id)
}

// NewStore returns the store of the sessions under dir; dir "" keeps them
// in memory, for the process's life. now is the clock (nil: time.Now).
func NewStore(dir string, now func() time.Time) *Store {
	s := &Store{dir: dir, b: disk{}, now: now, busy: map[string]string{}}
	if dir == "" {
		s.dir, s.b = string(filepath.Separator)+"sessions", &memory{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Persistent reports whether sessions outlive the process.
func (s *Store) Persistent() bool {
	_, mem := s.b.(*memory)
	return !mem
}

// Dir is where the store keeps sessions ("" in memory).
func (s *Store) Dir() string {
	if !s.Persistent() {
		return ""
	}
	return s.dir
}

// folder is the folder of a workspace folder's sessions. The hash keeps
// one folder per workspace without putting its path in a file name.
func (s *Store) folder(root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:6]))
}

func (s *Store) path(root, id string) string {
	return filepath.Join(s.folder(root), id+".jsonl")
}

var validID = regexp.MustCompile(`^s-[0-9a-f]{8}$`)

// notFound is the error for a session id that names no session of root.
func notFound(id string) error {
	return fmt.Errorf("%w %q in this workspace folder (it was deleted, or belongs to another folder)", ErrNotFound, id)
}

// Create starts a new session in the workspace folder root and returns its
// id; title names it in listings.
func (s *Store) Create(root, title string) (string, error) {
	b := make([]byte, 4)
	rand.Read(b)
	id := "s-" + hex.EncodeToString(b)
	line, err := encode(record{Type: typeHeader, Time: s.now(), Format: Format, ID: id, Root: filepath.Clean(root), Title: title})
	if err != nil {
		return "", err
	}
	if err := s.b.create(s.path(root, id), line); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return id, nil
}

// Lock opens session id of root for writing, for holder (a run id, or what
// else writes it): until the Writer is closed, nothing else may. A session
// held elsewhere is ErrBusy; a file that does not read, or that a newer
// agentls wrote, is not opened (ErrCorrupt, ErrNewer).
func (s *Store) Lock(root, id, holder string) (*Writer, error) {
	if !validID.MatchString(id) {
		return nil, notFound(id)
	}
	s.mu.Lock()
	if h, ok := s.busy[id]; ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s is running in it", ErrBusy, h)
	}
	s.busy[id] = holder
	s.mu.Unlock()
	w, err := s.lock(root, id, holder)
	if err != nil {
		s.release(id)
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return w, nil
}

func (s *Store) lock(root, id, holder string) (*Writer, error) {
	path := s.path(root, id)
	h, err := s.b.open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, err
	}
	data, err := h.data()
	if err == nil {
		var st *state
		var n int
		if st, n, err = parse(data); err == nil {
			if n < len(data) {
				// The last record was cut short by a crash: cut it off, so
				// that the next one starts a line.
				err = h.truncate(int64(n))
			}
			if err == nil {
				return &Writer{s: s, id: id, holder: holder, path: path, h: h, st: st}, nil
			}
		}
	}
	h.close()
	return nil, err
}

func (s *Store) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, id)
}

func (s *Store) holder(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[id]
}

// A Problem is a session file that does not read.
type Problem struct {
	ID   string
	Path string
	Err  error
}

func (p Problem) Error() string { return fmt.Sprintf("session %s (%s): %v", p.ID, p.Path, p.Err) }

func (p Problem) Unwrap() error { return p.Err }

// List returns the sessions of the workspace folders roots, the most
// recently updated first, and the files that do not read.
func (s *Store) List(roots ...string) ([]Info, []Problem, error) {
	var infos []Info
	var problems []Problem
	for _, root := range roots {
		paths, err := s.b.list(s.folder(root))
		if err != nil {
			return nil, nil, err
		}
		for _, p := range paths {
			id := filepath.Base(p[:len(p)-len(".jsonl")])
			st, _, err := s.read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted meanwhile
			}
			if err != nil {
				problems = append(problems, Problem{ID: id, Path: p, Err: err})
				continue
			}
			st.info.Busy = s.holder(st.info.ID)
			infos = append(infos, st.info)
		}
	}
	slices.SortStableFunc(infos, func(a, b Info) int { return b.Updated.Compare(a.Updated) })
	return infos, problems, nil
}

func (s *Store) read(path string) (*state, time.Time, error) {
	data, mod, err := s.b.read(path)
	if err != nil {
		return nil, mod, err
	}
	st, _, err := parse(data)
	return st, mod, err
}

// Latest returns the session of root updated last. If that session's file
// does not read (its file's time tells it is the latest), it says so
// rather than pick an older one.
func (s *Store) Latest(root string) (Info, error) {
	paths, err := s.b.list(s.folder(root))
	if err != nil {
		return Info{}, err
	}
	type candidate struct {
		t    time.Time
		info Info
		err  error
	}
	var best *candidate
	for _, p := range paths {
		st, mod, err := s.read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		c := candidate{t: mod, err: Problem{ID: filepath.Base(p[:len(p)-len(".jsonl")]), Path: p, Err: err}}
		if err == nil {
			c = candidate{t: st.info.Updated, info: st.info}
		}
		if best == nil || c.t.After(best.t) {
			best = &c
		}
	}
	switch {
	case best == nil:
		return Info{}, fmt.Errorf("%w: this workspace folder has no sessions yet", ErrNotFound)
	case best.err != nil:
		return Info{}, best.err
	}
	best.info.Busy = s.holder(best.info.ID)
	return best.info, nil
}

// Get returns session id of root.
func (s *Store) Get(root, id string) (Info, error) {
	if !validID.MatchString(id) {
		return Info{}, notFound(id)
	}
	st, _, err := s.read(s.path(root, id))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, notFound(id)
	}
	if err != nil {
		return Info{}, fmt.Errorf("session %s: %w", id, err)
	}
	st.info.Busy = s.holder(id)
	return st.info, nil
}

// Delete deletes session id of root, unless something holds it. A file
// that does not read can be deleted.
func (s *Store) Delete(root, id string) error {
	if !validID.MatchString(id) {
		return notFound(id)
	}
	s.mu.Lock()
	if h, ok := s.busy[id]; ok {
		s.mu.Unlock()
		return fmt.Errorf("session %s: %w: %s is running in it", id, ErrBusy, h)
	}
	s.busy[id] = "delete"
	s.mu.Unlock()
	defer s.release(id)
	path := s.path(root, id)
	h, err := s.b.open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return notFound(id)
	}
	if err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	defer h.close()
	return s.b.remove(path)
}

// FindRun returns the session of roots that holds run runID.
func (s *Store) FindRun(roots []string, runID string) (Info, error) {
	infos, _, err := s.List(roots...)
	if err != nil {
		return Info{}, err
	}
	for _, info := range infos {
		for _, r := range info.Runs {
			if r.ID == runID {
				return info, nil
			}
		}
	}
	return Info{}, fmt.Errorf("%w holds run %q in this workspace", ErrNotFound, runID)
}
