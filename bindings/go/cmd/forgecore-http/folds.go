package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// net/http joins an obsolete folded header line (RFC 9112 5.2: a line that starts with a space
// or a tab) to the header before it, so "Private-Token:\r\n glpat-..." authenticates, and a
// proxy in front that reads the fold otherwise is bypassed. RFC 9112 lets a server refuse such
// a request with 400, as gunicorn and the Python host do; net/http has no such switch and
// keeps no raw header lines, so each connection records the raw head of the request it is
// reading (headRecorder), and rejectFolds looks at it before the request goes further.

const (
	// headLimit bounds a recorded head: the server's MaxHeaderBytes and its read-ahead.
	headLimit = 64<<10 + 8<<10
	// keptHead is the most a connection keeps allocated between requests.
	keptHead = 4 << 10
)

// headRecorder keeps the bytes a connection read since its current request's head began,
// skipping the body of the request before (its length is known once that request was read).
type headRecorder struct {
	mu   sync.Mutex
	head []byte
	// skip is what remains of the previous request's body; -1 after a chunked body, whose
	// raw length is not known: nothing is recorded any more, and that request closes the
	// connection.
	skip int64
}

func (r *headRecorder) saw(data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skip < 0 {
		return
	}
	if r.skip > 0 {
		k := min(int64(len(data)), r.skip)
		data = data[k:]
		r.skip -= k
	}
	if room := headLimit - len(r.head); room > 0 {
		r.head = append(r.head, data[:min(len(data), room)]...)
	}
}

// take answers whether the head of the request just read has a folded line (or could not be
// seen whole: then it is refused too), and starts recording the next one after this request's
// body of contentLength bytes (-1: unknown).
func (r *headRecorder) take(contentLength int64) (folded bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skip < 0 {
		return true
	}
	end, sep := bytes.Index(r.head, []byte("\r\n\r\n")), 4
	if lf := bytes.Index(r.head, []byte("\n\n")); lf >= 0 && (end < 0 || lf < end) {
		end, sep = lf, 2
	}
	if end < 0 {
		r.skip, r.head = -1, nil
		return true
	}
	head := r.head[:end+sep]
	folded = bytes.Contains(head, []byte("\n ")) || bytes.Contains(head, []byte("\n\t"))
	rest := r.head[end+sep:]
	switch {
	case contentLength < 0:
		r.skip, r.head = -1, nil
	case int64(len(rest)) >= contentLength:
		r.skip, r.head = 0, append([]byte(nil), rest[contentLength:]...)
	default:
		r.skip, r.head = contentLength-int64(len(rest)), r.head[:0]
	}
	if cap(r.head) > keptHead {
		// An idle connection keeps no large buffer because its last head was large.
		r.head = append([]byte(nil), r.head...)
	}
	return folded
}

type recorderKey struct{}

// withRecorder is the server's ConnContext: it hands each request its connection's recorder.
func withRecorder(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*slotConn); ok {
		return context.WithValue(ctx, recorderKey{}, &c.head)
	}
	return ctx
}

const badRequest = `{"message":"400 Bad Request"}`

// rejectFolds answers 400 to a request whose raw head has a folded line, and closes the
// connection after a request whose body length is unknown (chunked), whose successor's head
// could not be told from its body.
func rejectFolds(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		recorder, ok := r.Context().Value(recorderKey{}).(*headRecorder)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if recorder.take(r.ContentLength) {
			w.Header().Set("Connection", "close")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, badRequest)
			return
		}
		if r.ContentLength < 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
