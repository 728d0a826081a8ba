package transport

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds a frame's declared Content-Length, as jsonrpc2 does.
const maxFrame = 1 << 30

// keepFrame is the largest body buffer kept for the next frame; a larger
// one (a 50 MB didOpen) goes back to the garbage collector.
const keepFrame = 1 << 20

// freeFrame is the body size after which the server hands its memory back
// to the system once the frame is handled: the body and the copies that
// decoding it made would otherwise stay in the process's resident set, a
// few times the size of a large document.
const freeFrame = 16 << 20

// Stream reads the LSP base protocol (Content-Length framing) without
// giving up on a bad frame: jsonrpc2's reader ends the connection at the
// first malformed header or body that is not JSON-RPC, which kills the
// server. Here a frame that is not a JSON-RPC message is answered with an
// error response (null id unless it can be read) and skipped, and a
// malformed header is skipped up to the next Content-Length header. A body
// is read as it arrives, so a huge declared length costs memory only for
// the bytes actually sent. Writing is jsonrpc2's header stream.
//
// With SetLift, it also takes long strings out of the frames it reads (a
// document's text) before jsonrpc2 and the handler's decoder see them: see
// SetLift.
type Stream struct {
	out    jsonrpc2.Stream // writes; its reading half is never used
	in     *bufio.Reader
	body   []byte // reused between frames; Inv: cap ≤ keepFrame
	freeOS bool   // a large frame was read: hand memory back before the next
	lift   *lifter
	log    *slog.Logger
	writes writeGate
}

// frameWriter is the raw-frame writing half of jsonrpc2's header stream.
type frameWriter interface {
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// NewStream returns a jsonrpc2 stream over rwc that reads frames as Stream
// does, survives malformed input, and logs what it skips to log.
func NewStream(rwc io.ReadWriteCloser, log *slog.Logger) *Stream {
	s := &Stream{out: jsonrpc2.NewStream(rwc), in: bufio.NewReader(rwc), log: log}
	s.writes.init(MaxPendingWrites)
	return s
}

// SetLift makes s lift the strings l names out of the frames it reads,
// from the next frame on. Each is decoded (as encoding/json decodes a
// string, in the frame's own buffer, which it then keeps when that costs
// little) and replaced in the frame by a placeholder string, which Lifted
// turns back into it: the frame jsonrpc2 scans and the handler decodes is
// small, and a 200 MB text is read once, not by every layer. Only
// notifications are lifted, which run before the next frame is read; a
// placeholder is valid until then. A lifted string that is not valid JSON
// makes its frame invalid JSON, answered as such.
func (s *Stream) SetLift(l Lift) {
	s.lift = newLifter(l)
}

// Lifted returns the string v stands for, if it is the placeholder of a
// string lifted from the last frame, else v itself; an error if it is a
// placeholder of an older frame.
func (s *Stream) Lifted(v string) (string, error) {
	if s.lift == nil {
		return v, nil
	}
	return s.lift.resolve(v)
}

// ReadFrame returns the body of the next frame that holds a JSON-RPC
// message (or batch). It is valid until the next read.
func (s *Stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	if err := s.writes.waitBelow(ctx); err != nil {
		return nil, 0, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		if body == nil {
			continue // a malformed header, answered already
		}
		if s.lift != nil {
			small, pinned, err := s.lift.lift(body)
			if pinned {
				s.body = nil // Inv: a lifted string holds it; never written again
			}
			if err != nil {
				// Partly decoded in place, the body is passed on to
				// nobody: it is answered as the invalid JSON it is.
				s.log.Warn("invalid JSON in message body", "err", err, "bytes", len(body))
				s.reply(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, "invalid JSON in message body: "+err.Error()))
				continue
			}
			body = small
		}
		id, bad := checkMessage(body)
		if bad == nil {
			return body, n, nil
		}
		s.log.Warn("invalid JSON-RPC message", "err", bad, "bytes", len(body))
		s.reply(ctx, id, bad)
	}
}

// Read implements jsonrpc2.Stream; the connection uses ReadFrame.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

func (s *Stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	s.writes.enter()
	defer s.writes.leave()
	return s.out.(frameWriter).WriteFrame(ctx, data)
}

// Close implements jsonrpc2.Stream: it closes the connection.
func (s *Stream) Close() error { return s.out.Close() }

// Write implements jsonrpc2.Stream.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	s.writes.enter()
	defer s.writes.leave()
	return s.out.Write(ctx, msg)
}

// reply answers a frame that could not be served.
func (s *Stream) reply(ctx context.Context, id jsonrpc2.ID, err *jsonrpc2.Error) {
	if _, werr := s.out.Write(ctx, jsonrpc2.NewResponse(id, nil, err)); werr != nil {
		s.log.Debug("reply to an invalid message", "err", werr)
	}
}

// readFrame reads one frame. A malformed header gives a nil body: the
// header is answered with a parse error and skipped; the bytes after it are
// read as header lines until one names a Content-Length, which is where
// the next frame starts (a body without line breaks and the next header
// may share a line).
func (s *Stream) readFrame(ctx context.Context) ([]byte, int64, error) {
	// The last frame has been handled (notifications run on the read loop,
	// and requests copy what they keep): the memory a large one left goes
	// back now, not when the next frame comes.
	if s.freeOS {
		s.freeOS = false
		debug.FreeOSMemory()
	}
	length, consumed := -1, 0
	var problem string
	for {
		line, err := s.line()
		consumed += len(line)
		if err != nil {
			if errors.Is(err, io.EOF) && consumed > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		if bytes.Equal(line, []byte("\r\n")) || bytes.Equal(line, []byte("\n")) {
			if length > 0 {
				break
			}
			if problem == "" && consumed == len(line) {
				consumed = 0
				continue // a stray blank line between frames
			}
			s.badHeader(ctx, cmp.Or(problem, "no Content-Length"))
			return nil, 0, nil
		}
		if i := lastIndexFold(line, "content-length:"); i >= 0 {
			n, err := strconv.Atoi(string(bytes.TrimSpace(line[i+len("content-length:"):])))
			switch {
			case err != nil || n <= 0 || n > maxFrame:
				length, problem = -1, fmt.Sprintf("bad Content-Length %.40q", bytes.TrimSpace(line[i:]))
			default:
				length = n
				if i > 0 {
					s.log.Warn("skipped bytes before a frame", "bytes", i)
				}
			}
			continue
		}
		if bytes.IndexByte(line, ':') < 0 {
			length, problem = -1, fmt.Sprintf("not a header line: %.40q", line)
		}
		// Other header fields (Content-Type) are ignored.
	}
	body, err := s.readBody(length)
	if err != nil {
		return nil, 0, err
	}
	return body, int64(consumed + length), nil
}

func (s *Stream) badHeader(ctx context.Context, problem string) {
	s.log.Warn("invalid message header", "problem", problem)
	s.reply(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, "invalid message header: "+problem))
}

// line reads one header line with its line break. A very long line (a body
// read as a header) is returned whole.
func (s *Stream) line() ([]byte, error) {
	line, err := s.in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := slices.Clone(line)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = s.in.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// readBody reads length bytes, growing the buffer as they come, eightfold
// each time, the last time to length exactly: a large body is copied about
// a sixth of its size in all, and a frame that declares more than it sends
// costs at most eight times what it sent. The buffers are made, never
// grown by append, which would clear each before the bytes are read into
// it.
func (s *Stream) readBody(length int) ([]byte, error) {
	body := s.body[:0]
	for len(body) < length {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), len(body)+min(length-len(body), max(7*cap(body), 64<<10)))
			copy(grown, body)
			body = grown
		}
		n, err := s.in.Read(body[len(body):min(cap(body), length)])
		body = body[:len(body)+n]
		if err != nil && len(body) < length {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	if cap(body) > keepFrame {
		s.body = nil // Inv: not kept; it goes once handled
		s.freeOS = s.freeOS || cap(body) >= freeFrame
	} else {
		s.body = body
	}
	return body, nil
}

// checkMessage reports why body is not a JSON-RPC message (or batch), and
// the request's id when it can be read.
func checkMessage(body []byte) (jsonrpc2.ID, *jsonrpc2.Error) {
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		if _, err := jsonrpc2.ParseRequests(body); err != nil {
			return jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, "invalid JSON-RPC batch: "+err.Error())
		}
		return jsonrpc2.ID{}, nil
	}
	if _, err := jsonrpc2.DecodeMessage(body); err != nil {
		if !json.Valid(body) {
			return jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, "invalid JSON in message body")
		}
		return requestID(body), jsonrpc2.NewError(jsonrpc2.InvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
	}
	return jsonrpc2.ID{}, nil
}

// requestID returns the id of a JSON object that is not a valid message,
// so that the client's request gets its answer; null if it has none, or if
// it is not a request (a broken response's id is one of the server's own).
func requestID(body []byte) jsonrpc2.ID {
	var m struct {
		ID     any     `json:"id"`
		Method *string `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == nil {
		return jsonrpc2.ID{}
	}
	switch id := m.ID.(type) {
	case string:
		return jsonrpc2.NewStringID(id)
	case float64:
		if id == float64(int64(id)) {
			return jsonrpc2.NewNumberID(int64(id))
		}
	}
	return jsonrpc2.ID{}
}

// lastIndexFold is bytes.LastIndex for an ASCII lower-case sep, ignoring
// the case of s.
func lastIndexFold(s []byte, sep string) int {
	for i := len(s) - len(sep); i >= 0; i-- {
		if asciiHasPrefixFold(s[i:], sep) {
			return i
		}
	}
	return -1
}

func asciiHasPrefixFold(s []byte, prefix string) bool {
	for j := range len(prefix) {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[j] {
			return false
		}
	}
	return true
}
