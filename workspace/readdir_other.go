//go:build !linux

package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

func readDirStat(path string, stat func(name string) bool) ([]fs.DirEntry, error) {
	return os.ReadDir(path)
}

func lstat(dir, name string) (fs.FileInfo, error) { return os.Lstat(filepath.Join(dir, name)) }
