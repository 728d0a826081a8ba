package acp

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/workspace"
)

// clientFS is a turn's view of the files: the workspace folder's, which
// resolves, confines and follows links (tools check every path through
// it), with reads through the client's fs/read_text_file when it offers
// it, so that the run sees the buffers the user has not saved. A read the
// client fails falls back to the disk.
//
// It holds its turn's context because agent.FS has none: a read never
// outlives the turn.
type clientFS struct {
	*workspace.Folder
	ctx context.Context
	ss  *session

	mu   sync.Mutex
	seen map[string]bool // the files read or written through the client
}

func (f *clientFS) ReadFile(path string) (string, error) {
	if !f.ss.srv.clientCaps().Fs.ReadTextFile {
		return f.Folder.ReadFile(path)
	}
	fi, statErr := os.Stat(path)
	if statErr == nil && !fi.Mode().IsRegular() {
		return f.Folder.ReadFile(path) // a folder or a device: the disk's answer
	}
	resp, err := f.readClient(path)
	switch {
	case err != nil:
		if f.ctx.Err() != nil {
			return "", f.ctx.Err()
		}
		f.ss.srv.log.Debug("acp: fs/read_text_file failed; reading the disk", "path", path, "err", err)
		return f.Folder.ReadFile(path)
	case resp.Content == "" && errors.Is(statErr, fs.ErrNotExist):
		// Some clients answer a file they do not have with nothing.
		return f.Folder.ReadFile(path)
	}
	f.see(path)
	return resp.Content, nil
}

func (f *clientFS) readClient(path string) (acpsdk.ReadTextFileResponse, error) {
	return f.ss.srv.client().ReadTextFile(f.ctx, acpsdk.ReadTextFileRequest{
		SessionId: acpsdk.SessionId(f.ss.id), Path: f.ss.ws.ClientPath(path)})
}

// see records a file the client has a buffer of.
func (f *clientFS) see(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = make(map[string]bool)
	}
	f.seen[path] = true
}

// unsaved names, relative to the folder, the files the run met in the
// client whose buffer differs from the disk now: a shell command sees the
// disk. ACP tells of no other buffers.
func (f *clientFS) unsaved() []string {
	if !f.ss.srv.clientCaps().Fs.ReadTextFile {
		return nil
	}
	f.mu.Lock()
	paths := make([]string, 0, len(f.seen))
	for p := range f.seen {
		paths = append(paths, p)
	}
	f.mu.Unlock()
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		resp, err := f.readClient(p)
		if err != nil {
			continue
		}
		if disk, err := os.ReadFile(p); err != nil || string(disk) != resp.Content {
			out = append(out, f.Rel(p))
		}
	}
	return out
}
