package main

import "testing"

// The recorder sees a connection's bytes in reads of any size: each request's head is looked
// at whole, its body (by Content-Length) skipped, and a fold found only in a head.
func TestHeadRecorderFindsFoldsInHeadsOnly(t *testing.T) {
	body := "{\"a\":\r\n 1}"
	stream := "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n" + body +
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n" +
		"GET / HTTP/1.1\r\nHost: x\r\nPrivate-Token:\r\n\tglpat-x\r\n\r\n"
	lengths := []int64{int64(len(body)), 0, 0}
	want := []bool{false, false, true}
	for _, size := range []int{1, 3, 7, 64, len(stream)} {
		var r headRecorder
		fed, request := 0, 0
		// Feed in pieces of `size`; take each request once its head has arrived, as net/http
		// would (it reads ahead, so more may have arrived).
		for request < len(want) {
			if fed < len(stream) {
				end := min(fed+size, len(stream))
				r.saw([]byte(stream[fed:end]))
				fed = end
			}
			r.mu.Lock()
			complete := containsHeadEnd(r.head) && r.skip == 0
			r.mu.Unlock()
			if !complete && fed < len(stream) {
				continue
			}
			if got := r.take(lengths[request]); got != want[request] {
				t.Fatalf("pieces of %d, request %d: folded %v", size, request, got)
			}
			request++
		}
	}
	var chunked headRecorder
	chunked.saw([]byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n \r\n0\r\n\r\n"))
	if chunked.take(-1) || !chunked.take(0) {
		t.Fatal("after a chunked body the next head cannot be told: it is refused")
	}
}

func containsHeadEnd(b []byte) bool {
	for i := 0; i+3 < len(b); i++ {
		if string(b[i:i+4]) == "\r\n\r\n" {
			return true
		}
	}
	return false
}
