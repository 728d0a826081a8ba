package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A listing is what reading one folder needs for a while: the buffer its
// entries are read into, and their names and types as read.
type listing struct {
	buf   []byte
	names []byte
	raw   []rawEntry
}

// listings are reused from folder to folder.
var listings = sync.Pool{New: func() any { return &listing{buf: make([]byte, 32<<10)} }}

// A dirList is one folder ReadDirStat listed: its open descriptor, until
// done.
type dirList struct {
	path string
	mu   sync.Mutex
	fd   int // -1 once done
}

// A dirEntry is an entry ReadDirStat lists. Its info is read at most once,
// at the first Info, or while listing when the folder did not give its
// type.
type dirEntry struct {
	name   string
	typ    fs.FileMode
	list   *dirList
	stated bool // info is set; guarded by list.mu
	info   fileInfo
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }
func (e *dirEntry) String() string    { return fs.FormatDirEntry(e) }

func (e *dirEntry) Info() (fs.FileInfo, error) {
	l := e.list
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.stated {
		return &e.info, nil
	}
	if l.fd < 0 {
		return os.Lstat(filepath.Join(l.path, e.name))
	}
	var st unix.Stat_t
	if err := fstatat(l.fd, e.name, &st); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: filepath.Join(l.path, e.name), Err: err}
	}
	e.info, e.stated = statInfo(e.name, &st), true
	return &e.info, nil
}

// rawEntry is an entry being listed: its name's bounds in the folder's
// names, and its type. It holds no pointer, so that sorting moves little.
type rawEntry struct {
	start, end uint32
	typ        fs.FileMode
}

func readDirStat(path string) ([]fs.DirEntry, func(), error) {
	fd, err := openDir(path)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	ls := listings.Get().(*listing)
	defer listings.Put(ls)
	// The names in one string: a few allocations for a folder, not one for
	// each entry.
	buf, names, raw := ls.buf, ls.names[:0], ls.raw[:0]
	defer func() { ls.names, ls.raw = names, raw }()
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return nil, nil, &fs.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			break
		}
		for rec := buf[:n]; len(rec) > 0; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			d := (*unix.Dirent)(unsafe.Pointer(&rec[0]))
			reclen := int(d.Reclen)
			if reclen <= 0 || reclen > len(rec) {
				break
			}
			nameBytes := rec[unsafe.Offsetof(d.Name):reclen]
			if i := slices.Index(nameBytes, 0); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			typ := d.Type
			rec = rec[reclen:]
			if s := string(nameBytes); s != "." && s != ".." { // no allocation: compared only
				start := len(names)
				names = append(names, nameBytes...)
				raw = append(raw, rawEntry{uint32(start), uint32(len(names)), direntType(typ)})
			}
		}
	}
	all := string(names)
	name := func(r rawEntry) string { return all[r.start:r.end] }
	slices.SortFunc(raw, func(a, b rawEntry) int { return strings.Compare(name(a), name(b)) })
	l := &dirList{path: path, fd: fd}
	entries := make([]dirEntry, len(raw))
	out := make([]fs.DirEntry, len(raw))
	for i, r := range raw {
		e := &entries[i]
		e.name, e.typ, e.list = name(r), r.typ, l
		out[i] = e
		if e.typ != ^fs.FileMode(0) {
			continue
		}
		// DT_UNKNOWN: only a stat tells.
		var st unix.Stat_t
		if err := fstatat(fd, e.name, &st); err != nil {
			e.typ = fs.ModeIrregular // gone since; Info will say so
			continue
		}
		e.info, e.stated = statInfo(e.name, &st), true
		e.typ = e.info.mode.Type()
	}
	return out, l.close, nil
}

// close is the done of ReadDirStat.
func (l *dirList) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

func openDir(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// direntType is the type of a dirent's d_type; all ones for DT_UNKNOWN,
// which only a stat can tell.
func direntType(t uint8) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return ^fs.FileMode(0)
}

func statInfo(name string, st *unix.Stat_t) fileInfo {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	return fileInfo{name: name, size: st.Size, mode: mode, modTime: time.Unix(st.Mtim.Unix())}
}
