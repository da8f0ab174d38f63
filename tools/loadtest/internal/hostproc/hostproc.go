// Package hostproc runs a forgecore HTTP host (forgecore-http or `python -m forgecore serve`)
// as a child process for the tools that drive one over loopback: it starts the host, reads the
// admin token and the URL it prints ("admin token: T", then "listening on URL" when it is
// ready), keeps its stderr for error messages, and stops it with SIGTERM.
package hostproc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	tokenLine = regexp.MustCompile(`^admin token:\s*(\S+)`)
	urlLine   = regexp.MustCompile(`^listening on\s+(https?://\S+)`)
)

// Host is one running host.
type Host struct {
	URL   string // without a trailing slash
	Token string // the administrator's token
	Pid   int

	cmd    *exec.Cmd
	mu     sync.Mutex // guards stderr
	stderr bytes.Buffer
}

type lockedWriter struct{ h *Host }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	return w.h.stderr.Write(p)
}

// Stderr is what the host wrote to stderr so far.
func (h *Host) Stderr() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// Start runs command and waits up to timeout for its URL; a host that prints no admin token
// before its URL is an error. Cancelling ctx kills the host.
func Start(ctx context.Context, timeout time.Duration, command ...string) (*Host, error) {
	h := &Host{cmd: exec.CommandContext(ctx, command[0], command[1:]...)}
	h.cmd.Stderr = lockedWriter{h}
	h.cmd.Cancel = func() error { return h.cmd.Process.Kill() }
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := h.cmd.Start(); err != nil {
		return nil, err
	}
	h.Pid = h.cmd.Process.Pid
	ready := make(chan error, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if m := tokenLine.FindStringSubmatch(scanner.Text()); m != nil {
				h.Token = m[1]
			}
			if m := urlLine.FindStringSubmatch(scanner.Text()); m != nil {
				h.URL = strings.TrimRight(m[1], "/")
				ready <- nil
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- errors.New("the host exited before printing its URL")
	}()
	select {
	case err = <-ready:
	case <-time.After(timeout):
		err = fmt.Errorf("no URL within %v", timeout)
	}
	if err == nil && h.Token == "" {
		err = errors.New("the host printed no admin token")
	}
	if err != nil {
		h.Kill()
		return nil, fmt.Errorf("%v: %s", err, h.Stderr())
	}
	return h, nil
}

// Kill ends the host at once and waits for it.
func (h *Host) Kill() {
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
}

// Stop sends SIGTERM (the hosts shut down cleanly on it) and waits for the exit. A host that
// had already exited, exits badly, or needs a kill after timeout is an error.
func (h *Host) Stop(timeout time.Duration) error {
	if h.cmd.ProcessState != nil {
		return fmt.Errorf("the host had already exited: %v", h.cmd.ProcessState)
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the host exited badly after SIGTERM: %v", err)
		}
		return nil
	case <-time.After(timeout):
		_ = h.cmd.Process.Kill()
		<-done
		return fmt.Errorf("the host did not stop within %v of SIGTERM", timeout)
	}
}
