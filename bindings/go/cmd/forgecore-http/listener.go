package main

import (
	"net"
	"strconv"
	"sync"
	"time"
)

// cappedListener hands the server at most cap(slots) connections at once, and at most
// perClient of them from one client address. Accept answers one over either cap itself, at
// once: a 503 in GitLab's shape, then close. It costs no goroutine, and a client holding every
// slot it may have delays nobody's answer (golang.org/x/net/netutil's LimitListener, which is
// not a dependency here, would instead block Accept and leave new clients unanswered in the
// kernel's backlog). The caps bound descriptors; goroutines doing work are bounded apart, by
// forgecore.Handler.MaxRequests, so idle keep-alive connections cost no thread.
type cappedListener struct {
	*net.TCPListener
	slots     chan struct{}
	perClient int
	mu        sync.Mutex
	clients   map[string]int // connections held, by client address (IP, without the port)
}

func capConnections(listener *net.TCPListener, max, perClient int) *cappedListener {
	return &cappedListener{TCPListener: listener, slots: make(chan struct{}, max), perClient: perClient,
		clients: map[string]int{}}
}

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.AcceptTCP()
		if err != nil {
			return nil, err
		}
		client := clientAddress(conn)
		if !l.takeClient(client) {
			refuse(conn, tooManyFromClient)
			continue
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{TCPConn: conn, release: func() { <-l.slots; l.releaseClient(client) }}, nil
		default:
			l.releaseClient(client)
			refuse(conn, tooManyConnections)
		}
	}
}

// clientAddress is the connection's remote IP: every port of one address is one client.
func clientAddress(conn *net.TCPConn) string {
	if addr, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return addr.IP.String()
	}
	return conn.RemoteAddr().String()
}

func (l *cappedListener) takeClient(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clients[client] >= l.perClient {
		return false
	}
	l.clients[client]++
	return true
}

func (l *cappedListener) releaseClient(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clients[client] <= 1 {
		delete(l.clients, client)
	} else {
		l.clients[client]--
	}
}

// slotConn gives its slot back on the first Close, and records request heads as it reads. It embeds *net.TCPConn, so net/http
// still finds CloseWrite for its lingering close.
type slotConn struct {
	*net.TCPConn
	once    sync.Once
	release func()
	head    headRecorder // the raw head of the request being read, for rejectFolds
}

func (c *slotConn) Read(p []byte) (int, error) {
	n, err := c.TCPConn.Read(p)
	if n > 0 {
		c.head.saw(p[:n])
	}
	return n, err
}

func (c *slotConn) Close() error {
	err := c.TCPConn.Close()
	c.once.Do(c.release)
	return err
}

// unavailable is a whole 503 answer in GitLab's shape that closes the connection.
func unavailable(reason string) []byte {
	body := `{"message":"503 Service Unavailable - ` + reason + `"}`
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body)
}

var (
	tooManyConnections = unavailable("too many connections")
	tooManyFromClient  = unavailable("too many connections from this address")
)

// refuse writes a 503 into the fresh connection's empty send buffer, which takes no waiting
// (the deadline only bounds the impossible case), and closes it.
func refuse(conn *net.TCPConn, answer []byte) {
	_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = conn.Write(answer)
	_ = conn.CloseWrite()
	_ = conn.Close()
}
