package acp

import (
	"context"
	"errors"
	"io/fs"
	"os"

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
}

func (f *clientFS) ReadFile(path string) (string, error) {
	if !f.ss.srv.clientCaps().Fs.ReadTextFile {
		return f.Folder.ReadFile(path)
	}
	fi, statErr := os.Stat(path)
	if statErr == nil && !fi.Mode().IsRegular() {
		return f.Folder.ReadFile(path) // a folder or a device: the disk's answer
	}
	resp, err := f.ss.srv.client().ReadTextFile(f.ctx, acpsdk.ReadTextFileRequest{
		SessionId: acpsdk.SessionId(f.ss.id), Path: f.ss.ws.ClientPath(path)})
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
	return resp.Content, nil
}
