package transport

import (
	"context"
	"errors"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Requests past the bound are answered at once with RequestFailed, while
// notifications still run; once the running requests end, requests run
// again.
func TestInflightBoundsRequests(t *testing.T) {
	t.Parallel()
	const n = 3
	release := make(chan struct{})
	entered, notified := make(chan struct{}), make(chan struct{})
	serverSide, clientSide := jsonrpc2.NewChannelStreamPair(16)
	server, client := jsonrpc2.NewConn(serverSide), jsonrpc2.NewConn(clientSide)
	ctx := t.Context()
	server.Go(ctx, NewInflight(n).Release(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			close(notified)
			return nil, nil
		}
		entered <- struct{}{}
		<-release
		return "ok", nil
	}))
	client.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	defer func() {
		client.Close()
		server.Close()
	}()

	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var res string
			if _, err := client.Call(ctx, "slow", nil, &res); err != nil || res != "ok" {
				t.Errorf("call %d: %q, %v", i, res, err)
			}
		})
	}
	for range n {
		<-entered
	}
	_, err := client.Call(ctx, "one too many", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeRequestFailed {
		t.Errorf("a request past the bound: %v, want RequestFailed", err)
	}
	if err := client.Notify(ctx, "note", nil); err != nil {
		t.Fatal(err)
	}
	<-notified // a notification past the bound runs
	close(release)
	wg.Wait()
	go func() { <-entered }()
	var res string
	if _, err := client.Call(ctx, "again", nil, &res); err != nil || res != "ok" {
		t.Errorf("after the handlers ended: %q, %v", res, err)
	}
}
