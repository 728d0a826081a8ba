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

// direntBufs holds the buffers folders are read into.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func readDirStat(path string, stat func(name string) bool) ([]fs.DirEntry, error) {
	fd, err := openDir(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	// The entries in one slice and their names in one string: two
	// allocations for a folder, not two for each entry.
	var (
		entries []dirEntry
		names   []byte
		ends    []int
	)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: path, Err: err}
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
				names = append(names, nameBytes...)
				ends = append(ends, len(names))
				entries = append(entries, dirEntry{typ: direntType(typ), dir: path})
			}
		}
	}
	all, from := string(names), 0
	for i, end := range ends {
		entries[i].name, from = all[from:end], end
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	out := make([]fs.DirEntry, len(entries))
	for i := range entries {
		e := &entries[i]
		out[i] = e
		unknown := e.typ == ^fs.FileMode(0)
		if !unknown && (!e.typ.IsRegular() || stat == nil || !stat(e.name)) {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if unknown {
				e.typ = fs.ModeIrregular // gone since; Info will say so
			}
			continue
		}
		e.info = statInfo(e.name, &st)
		e.typ = e.info.mode.Type()
		e.stated = e.typ.IsRegular() && stat != nil && (!unknown || stat(e.name))
	}
	return out, nil
}

func openDir(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
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

func lstat(dir, name string) (fs.FileInfo, error) { return os.Lstat(filepath.Join(dir, name)) }
