package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// ReadDirStat lists the directory path on disk, sorted by name, as ReadDir
// does. Where it can (Linux), it keeps the folder open until done is
// called, and the Info of an entry then costs one fstatat on the open
// folder, which costs less than an Lstat of the entry's whole path: a glob
// needs the modification time of every file it matches, and asks only for
// those. Call done once, when the Infos wanted are read, and never while
// an Info runs; Info still works after it, as an Lstat.
func (w *Workspace) ReadDirStat(path string) (entries []fs.DirEntry, done func(), err error) {
	return readDirStat(canonical(w.rootList(), path))
}

// ReadDirStat is Workspace.ReadDirStat for the folder's view; view must be
// f itself (see AppendFile), else the error wraps errors.ErrUnsupported.
func (f *Folder) ReadDirStat(view any, path string) ([]fs.DirEntry, func(), error) {
	if view != any(f) {
		return nil, nil, fmt.Errorf("list %s through another view: %w", path, errors.ErrUnsupported)
	}
	return f.w.ReadDirStat(path)
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
