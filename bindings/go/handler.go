package forgecore

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Handler serves /api/v4 from a Core over net/http. It carries each request to [Core.Do]
// unchanged (the raw target, never the decoded path; the headers, Host included; the body up
// to one byte over the core's limit, so that the core answers 413 itself) and writes the core's
// status, headers and body back, streaming bodies the core produces while they are read. It
// has no routes, parameters or status decisions of its own.
//
// It may be mounted in a larger mux (`mux.Handle("/api/v4/", h)`); the core sees the full
// request target, so mount it where the client's URLs point, not under a stripped prefix.
type Handler struct {
	core *Core
	// ErrorLog receives panics recovered in the handler and streams that fail midway; nil
	// logs through the log package.
	ErrorLog *log.Logger
	// WriteTimeout is the longest the client may take to accept each piece of the answer (at
	// most 64 KiB; the first piece carries the head): a minimum transfer rate, so that a client
	// that stops reading is dropped, and the body the core holds for it freed, instead of
	// holding them for as long as it likes, while an answer of any length streams as long as
	// it keeps being read. Zero sets no deadline. NewHandler sets DefaultWriteTimeout.
	WriteTimeout time.Duration
	// ReadTimeout is the longest the client may take to send each 64 KiB of the request body
	// after the first byte of it is asked for: a minimum transfer rate, so that a body of any
	// length (a large git push) arrives for as long as it keeps coming, while a client that
	// trickles it is cut off. It replaces the server's deadline for the body (set
	// http.Server.ReadHeaderTimeout for the head, and leave Server.ReadTimeout zero, which
	// would cut off a long body whatever its rate). Zero sets no deadline of its own.
	ReadTimeout time.Duration
	// MaxRequests is the most requests the core works on at once (each holds a thread while
	// it calls into the core); one more is answered 503 at once. A request takes its place
	// before its body is read and gives it back as soon as the core is done with it: when the
	// core has answered, or for a streamed answer when the stream has ended, before net/http's
	// buffers are flushed. A client that waits for each answer so never finds its previous
	// request still holding a place (unless the answer outgrew those buffers, when its end
	// may reach the client a moment before). Zero sets no limit. Set it before serving.
	MaxRequests int

	slotsOnce sync.Once
	slots     chan struct{}
}

// tooManyRequests is the answer past MaxRequests, in GitLab's shape.
const tooManyRequests = "503 Service Unavailable - too many requests"

// admit takes a place for one request under MaxRequests: release gives it back (once, however
// often it is called); ok is false when every place is taken.
func (h *Handler) admit() (release func(), ok bool) {
	if h.MaxRequests <= 0 {
		return func() {}, true
	}
	h.slotsOnce.Do(func() { h.slots = make(chan struct{}, h.MaxRequests) })
	select {
	case h.slots <- struct{}{}:
		released := false
		return func() {
			if !released {
				released = true
				<-h.slots
			}
		}, true
	default:
		return nil, false
	}
}

// DefaultWriteTimeout is NewHandler's WriteTimeout.
const DefaultWriteTimeout = 30 * time.Second

// NewHandler serves core, which the caller keeps open while the handler runs and closes after.
func NewHandler(core *Core) *Handler {
	return &Handler{core: core, WriteTimeout: DefaultWriteTimeout}
}

const (
	// A body the core did not read is drained up to this size, within drainTimeout, so that
	// the client reads the answer instead of a connection reset.
	drainMax     = 64 << 20
	drainTimeout = 5 * time.Second
	copyChunk    = 64 << 10
)

var copyBuffers = sync.Pool{New: func() any { buffer := make([]byte, copyChunk); return &buffer }}

// hopByHop are the headers of one connection, which net/http writes itself (RFC 9110 7.6.1).
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-authenticate": true, "proxy-authorization": true,
	"te": true, "trailer": true, "trailers": true, "transfer-encoding": true, "upgrade": true,
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	release, admitted := h.admit()
	if !admitted {
		internalError(w, tooManyRequests)
		return
	}
	defer release()
	written := false
	defer func() {
		if recovered := recover(); recovered != nil {
			if recovered == http.ErrAbortHandler { //nolint:errorlint // the sentinel is compared by identity
				panic(recovered)
			}
			h.logf("forgecore: panic serving %s %s: %v", r.Method, r.URL.RequestURI(), recovered)
			if written {
				panic(http.ErrAbortHandler) // the status is out: cut the connection, not the body
			}
			internalError(w, "500 Internal Server Error")
		}
	}()

	header := r.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	// net/http moves Host out of the header map; the core builds absolute links from it.
	if r.Host != "" {
		header["Host"] = []string{r.Host}
	}
	var body io.Reader = r.Body
	if h.ReadTimeout > 0 {
		body = newPacedReader(r.Body, http.NewResponseController(w), h.ReadTimeout)
	}
	response, read, err := h.core.Serve(r.Method, r.URL.RequestURI(), header, body, connectionMeta(r))
	if errors.Is(err, ErrRequestBody) {
		// The client stopped sending: nobody is left to read an answer.
		panic(http.ErrAbortHandler)
	}
	if err != nil {
		// The core is closed (the host is shutting down) or the target cannot reach C.
		internalError(w, "503 Service Unavailable")
		return
	}
	defer response.Close()
	if !response.Streamed {
		release() // the answer is all here: the core is done with this request
	}

	out := w.Header()
	for name, values := range response.Header {
		if !hopByHop[strings.ToLower(name)] {
			out[name] = values
		}
	}
	if !response.Streamed && r.Method != http.MethodHead && bodyAllowed(response.Status) {
		out["Content-Length"] = []string{strconv.Itoa(len(response.data))}
	}
	written = true
	paced := &pacedWriter{w: w, controller: http.NewResponseController(w), timeout: h.WriteTimeout}
	paced.setDeadline()
	w.WriteHeader(response.Status)
	if response.Streamed {
		buffer := copyBuffers.Get().(*[]byte)
		_, err = io.CopyBuffer(paced, response.Body, *buffer)
		copyBuffers.Put(buffer)
		if errors.Is(err, ErrBodyRead) {
			h.logf("forgecore: %s %s: %v", r.Method, r.URL.RequestURI(), err)
			panic(http.ErrAbortHandler) // a short body must not look complete
		}
		if err != nil {
			panic(http.ErrAbortHandler) // the client stopped reading, or went away
		}
	} else if len(response.data) > 0 {
		if _, err := paced.Write(response.data); err != nil && !errors.Is(err, http.ErrBodyNotAllowed) {
			panic(http.ErrAbortHandler)
		}
	}
	_ = response.Close() // a streamed answer's record is written as its stream ends
	release()
	if paced.finish() != nil {
		panic(http.ErrAbortHandler)
	}
	drain(w, r, read)
}

// pacedWriter writes the answer in pieces of at most copyChunk, each within the timeout of the
// write before it: net/http has only a deadline for the whole answer (Server.WriteTimeout),
// which would cut off a long archive read at full speed as surely as a stalled client.
type pacedWriter struct {
	w          http.ResponseWriter
	controller *http.ResponseController
	timeout    time.Duration
}

func (p *pacedWriter) setDeadline() {
	if p.timeout > 0 {
		// A ResponseWriter without deadlines (a test recorder, a wrapper) just goes without.
		_ = p.controller.SetWriteDeadline(time.Now().Add(p.timeout))
	}
}

func (p *pacedWriter) Write(data []byte) (int, error) {
	written := 0
	for len(data) > 0 {
		piece := min(len(data), copyChunk)
		p.setDeadline()
		n, err := p.w.Write(data[:piece])
		written += n
		if err != nil {
			return written, err
		}
		data = data[piece:]
	}
	return written, nil
}

// finish sends what net/http still buffers within the deadline, then lifts it, so that a
// keep-alive connection's next answer does not inherit it.
func (p *pacedWriter) finish() error {
	if p.timeout <= 0 {
		return nil
	}
	p.setDeadline()
	if err := p.controller.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_ = p.controller.SetWriteDeadline(time.Time{})
	return nil
}

// pacedReader reads the request body under a deadline per piece: each copyChunk must arrive
// within the timeout of the one before. net/http has only a deadline for the whole request
// (Server.ReadTimeout), which would cut off a long push sent at full speed as surely as a
// trickling client.
type pacedReader struct {
	body       io.Reader
	controller *http.ResponseController
	timeout    time.Duration
	received   int
}

func newPacedReader(body io.Reader, controller *http.ResponseController, timeout time.Duration) *pacedReader {
	// A ResponseWriter without deadlines (a test recorder, a wrapper) just goes without.
	_ = controller.SetReadDeadline(time.Now().Add(timeout))
	return &pacedReader{body: body, controller: controller, timeout: timeout}
}

func (p *pacedReader) Read(buffer []byte) (int, error) {
	n, err := p.body.Read(buffer)
	p.received += n
	if p.received >= copyChunk {
		p.received %= copyChunk
		_ = p.controller.SetReadDeadline(time.Now().Add(p.timeout))
	}
	return n, err
}

// connectionMeta is what the server knows about the connection: the peer's address (when it
// is one: a Unix socket's peer is not) and the scheme.
func connectionMeta(r *http.Request) Meta {
	meta := Meta{Scheme: "http"}
	if r.TLS != nil {
		meta.Scheme = "https"
	}
	if peer, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		meta.PeerAddr = peer.String()
	}
	return meta
}

// drain discards a body the core left unread (a 413 answer, for one) after flushing the
// answer, bounded in size and time; past those bounds net/http closes the connection.
func drain(w http.ResponseWriter, r *http.Request, read int64) {
	if r.ContentLength >= 0 && r.ContentLength-read > drainMax {
		return
	}
	if r.ContentLength >= 0 && r.ContentLength <= read {
		return
	}
	controller := http.NewResponseController(w)
	if controller.Flush() != nil {
		return
	}
	_ = controller.SetReadDeadline(time.Now().Add(drainTimeout))
	_, _ = io.CopyN(io.Discard, r.Body, drainMax)
}

// bodyAllowed says whether a status may carry a body (and so a Content-Length).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// internalError answers a failure of the host itself (not of the request) in GitLab's shape.
func internalError(w http.ResponseWriter, message string) {
	status, _ := strconv.Atoi(message[:3])
	header := w.Header()
	for name := range header {
		delete(header, name)
	}
	header.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"message":"`+message+`"}`)
}

func (h *Handler) logf(format string, args ...any) {
	if h.ErrorLog != nil {
		h.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}
