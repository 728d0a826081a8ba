package lsptest

import (
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// showMessageRequest answers window/showMessageRequest with the test's
// ShowMessageRequest, or dismisses the question.
func (e *Editor) showMessageRequest(m Message) (any, error) {
	var p protocol.ShowMessageRequestParams
	if err := protocol.Unmarshal(m.Params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if e.ShowMessageRequest == nil {
		return nil, nil
	}
	item := e.ShowMessageRequest(&p)
	if item == nil {
		return nil, nil
	}
	return item, nil
}

// Choose returns a ShowMessageRequest answer that picks the first action
// whose title starts with prefix, and dismisses questions that have none.
func Choose(prefix string) func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
	return func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		for _, a := range p.Actions {
			if strings.HasPrefix(a.Title, prefix) {
				return &a
			}
		}
		return nil
	}
}

// Questions returns the window/showMessageRequest questions the server
// asked so far, each as its message and its actions' titles.
func (e *Editor) Questions() []string {
	var out []string
	for _, m := range e.Messages() {
		if m.Method != protocol.MethodWindowShowMessageRequest {
			continue
		}
		var p protocol.ShowMessageRequestParams
		if err := protocol.Unmarshal(m.Params, &p); err != nil {
			out = append(out, fmt.Sprintf("(bad params: %v)", err))
			continue
		}
		titles := make([]string, len(p.Actions))
		for i, a := range p.Actions {
			titles[i] = a.Title
		}
		out = append(out, p.Message+" ["+strings.Join(titles, " | ")+"]")
	}
	return out
}
