package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// ReadDirStat lists the directory path on disk, sorted by name, as ReadDir
// does, and fills in the FileInfo of the regular files that stat chooses by
// name, so that their Info costs nothing more. Where it can (Linux), it
// reads the folder and its files' metadata through one open descriptor,
// which costs less than ReadDir and an Lstat of each file's path: a glob
// needs the modification time of every file it matches.
func (w *Workspace) ReadDirStat(path string, stat func(name string) bool) ([]fs.DirEntry, error) {
	return readDirStat(canonical(w.rootList(), path), stat)
}

// ReadDirStat is Workspace.ReadDirStat for the folder's view; view must be
// f itself (see AppendFile), else the error wraps errors.ErrUnsupported.
func (f *Folder) ReadDirStat(view any, path string, stat func(name string) bool) ([]fs.DirEntry, error) {
	if view != any(f) {
		return nil, fmt.Errorf("list %s through another view: %w", path, errors.ErrUnsupported)
	}
	return f.w.ReadDirStat(path, stat)
}

// A dirEntry is an entry ReadDirStat lists; info is set when it was
// stat'ed (stated), else Info asks the system.
type dirEntry struct {
	name   string
	typ    fs.FileMode
	dir    string
	stated bool
	info   fileInfo
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }
func (e *dirEntry) String() string    { return fs.FormatDirEntry(e) }
func (e *dirEntry) Info() (fs.FileInfo, error) {
	if e.stated {
		return &e.info, nil
	}
	return lstat(e.dir, e.name)
}

// A fileInfo is the metadata ReadDirStat found.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.modTime }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *fileInfo) Sys() any           { return nil }
func (i *fileInfo) String() string     { return fs.FormatFileInfo(i) }
