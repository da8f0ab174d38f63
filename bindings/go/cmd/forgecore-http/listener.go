package main

import (
	"net"
	"strconv"
	"sync"
	"time"
)

// cappedListener hands the server at most cap(slots) connections at once. Accept answers one
// over the cap itself, at once: a 503 in GitLab's shape, then close. It costs no goroutine,
// and a client holding every slot delays nobody's answer (golang.org/x/net/netutil's
// LimitListener, which is not a dependency here, would instead block Accept and leave new
// clients unanswered in the kernel's backlog).
type cappedListener struct {
	*net.TCPListener
	slots chan struct{}
}

func capConnections(listener *net.TCPListener, max int) *cappedListener {
	return &cappedListener{TCPListener: listener, slots: make(chan struct{}, max)}
}

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.AcceptTCP()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{TCPConn: conn, release: func() { <-l.slots }}, nil
		default:
			refuse(conn)
		}
	}
}

// slotConn gives its slot back on the first Close. It embeds *net.TCPConn, so net/http
// still finds CloseWrite for its lingering close.
type slotConn struct {
	*net.TCPConn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.TCPConn.Close()
	c.once.Do(c.release)
	return err
}

const tooManyBody = `{"message":"503 Service Unavailable - too many connections"}`

var tooManyConnections = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n" +
	"Content-Length: " + strconv.Itoa(len(tooManyBody)) + "\r\nConnection: close\r\n\r\n" + tooManyBody)

// refuse writes the 503 into the fresh connection's empty send buffer, which takes no
// waiting (the deadline only bounds the impossible case), and closes it.
func refuse(conn *net.TCPConn) {
	_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = conn.Write(tooManyConnections)
	_ = conn.CloseWrite()
	_ = conn.Close()
}
