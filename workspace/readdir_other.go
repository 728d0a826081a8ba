//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

func readDirStat(path string) ([]fs.DirEntry, func(), error) {
	entries, err := os.ReadDir(path)
	return entries, func() {}, err
}
