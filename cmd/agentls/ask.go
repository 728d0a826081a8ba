package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// lines reads the user's answers, one line each. A read that the asker
// stopped waiting for (its run ended) is kept for the next question, so
// that no answer is lost and no two reads race.
type lines struct {
	r       *bufio.Reader
	tty     *os.File        // the input, when it is a terminal
	echo    bool            // show answers: the input is no terminal, which would echo them
	pending chan readResult // the read in flight, nil when none
}

type readResult struct {
	s   string
	err error
}

func newLines(r io.Reader) *lines {
	l := &lines{r: bufio.NewReader(r), echo: !isTerminal(r)}
	if !l.echo {
		l.tty = r.(*os.File)
	}
	return l
}

// discard drops what was typed on a terminal before a question was shown:
// a key pressed ahead must not answer a question its typist never saw.
// Answers piped in (no terminal) are kept: they are written for the
// questions.
func (l *lines) discard() {
	if l.tty == nil {
		return
	}
	if l.pending != nil {
		select {
		case <-l.pending: // a line read while no question was shown
			l.pending = nil
		default:
		}
	}
	if l.pending == nil {
		l.r.Discard(l.r.Buffered())
	}
	flushInput(l.tty)
}

// next returns the next line, trimmed and lower case, or the reader's
// error, or ctx's. Calls must not overlap (the printer's lock orders them).
func (l *lines) next(ctx context.Context) (string, error) {
	if l.pending == nil {
		ch := make(chan readResult, 1)
		l.pending = ch
		go func() {
			s, err := l.r.ReadString('\n')
			if err != nil && s != "" {
				err = nil // a last line without a newline is an answer
			}
			ch <- readResult{s, err}
		}()
	}
	select {
	case res := <-l.pending:
		l.pending = nil
		return strings.ToLower(strings.TrimSpace(res.s)), res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Answers to a question.
const (
	answerYes    = "y"
	answerNo     = "n"
	answerAlways = "a"
	answerDiff   = "d"
	answerQuit   = "q"
)

// errNoAnswer reports that the terminal gave no answer (end of input).
var errNoAnswer = errors.New("no answer on the terminal")

// ask asks q until the user gives one of the answers y, n, a, d or q (or
// the word it stands for) and returns it. detail is shown for d and the
// question asked again; help explains the answers after any other answer.
func (p *printer) ask(ctx context.Context, in *lines, q, help string, detail func()) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		p.clearSpinner()
		if p.inText {
			fmt.Fprintln(p.w)
			p.inText = false
		}
		in.discard()
		fmt.Fprint(p.w, q)
		s, err := in.next(ctx)
		if err != nil {
			fmt.Fprintln(p.w)
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", errNoAnswer
		}
		if in.echo {
			fmt.Fprintln(p.w, s)
		}
		switch s {
		case "y", "yes":
			return answerYes, nil
		case "n", "no":
			return answerNo, nil
		case "a", "always":
			return answerAlways, nil
		case "q", "quit":
			return answerQuit, nil
		case "d", "diff", "details":
			if detail != nil {
				detail()
				continue
			}
		}
		p.line("%s", p.paint(dim, help))
	}
}
