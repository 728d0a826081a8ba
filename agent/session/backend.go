package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// A backend holds session files: on disk, or in memory when there is no
// state directory.
type backend interface {
	read(path string) ([]byte, time.Time, error)
	// create makes a new file holding data; it fails if path exists.
	create(path string, data []byte) error
	// open opens a file for writing, locked against other processes.
	open(path string) (handle, error)
	remove(path string) error
	// list lists the files of a folder.
	list(dir string) ([]string, error)
}

// A handle is a session file open for writing.
type handle interface {
	data() ([]byte, error)
	truncate(n int64) error
	write(b []byte) error
	close() error
}

// disk keeps session files on disk, readable by the user alone: they hold
// code, commands and the conversation.
type disk struct{}

func (disk) read(path string) ([]byte, time.Time, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	return b, fi.ModTime(), nil
}

func (disk) create(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func (disk) open(path string) (handle, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return diskFile{f}, nil
}

func (disk) remove(path string) error { return os.Remove(path) }

func (disk) list(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(paths)
	return paths, err
}

type diskFile struct{ f *os.File }

func (d diskFile) data() ([]byte, error) {
	if _, err := d.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(d.f)
}

func (d diskFile) truncate(n int64) error { return d.f.Truncate(n) }

// write writes one record in one write: a crash leaves it whole or cut
// short, and a cut record is cut off before the next write.
func (d diskFile) write(b []byte) error {
	_, err := d.f.Write(b)
	return err
}

func (d diskFile) close() error {
	unlockFile(d.f)
	return d.f.Close()
}

// memory keeps session files in memory: sessions last as long as the
// process.
type memory struct {
	mu    sync.Mutex
	files map[string]*memFile
}

type memFile struct {
	b   []byte
	mod time.Time
}

func (m *memory) read(path string) ([]byte, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files[path]
	if f == nil {
		return nil, time.Time{}, fs.ErrNotExist
	}
	return append([]byte(nil), f.b...), f.mod, nil
}

func (m *memory) create(path string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string]*memFile{}
	}
	if m.files[path] != nil {
		return fs.ErrExist
	}
	m.files[path] = &memFile{b: append([]byte(nil), data...), mod: time.Now()}
	return nil
}

func (m *memory) open(path string) (handle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files[path] == nil {
		return nil, fs.ErrNotExist
	}
	return &memHandle{m: m, path: path}, nil
}

func (m *memory) remove(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files[path] == nil {
		return fs.ErrNotExist
	}
	delete(m.files, path)
	return nil
}

func (m *memory) list(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var paths []string
	for p := range m.files {
		if filepath.Dir(p) == dir && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}

type memHandle struct {
	m    *memory
	path string
}

func (h *memHandle) file() (*memFile, error) {
	f := h.m.files[h.path]
	if f == nil {
		return nil, fmt.Errorf("%s: %w", h.path, fs.ErrNotExist)
	}
	return f, nil
}

func (h *memHandle) data() ([]byte, error) {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	f, err := h.file()
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), f.b...), nil
}

func (h *memHandle) truncate(n int64) error {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	f, err := h.file()
	if err != nil {
		return err
	}
	if n > int64(len(f.b)) {
		return errors.New("truncate past the end")
	}
	f.b = f.b[:n]
	return nil
}

func (h *memHandle) write(b []byte) error {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	f, err := h.file()
	if err != nil {
		return err
	}
	f.b = append(f.b, b...)
	f.mod = time.Now()
	return nil
}

func (h *memHandle) close() error { return nil }
