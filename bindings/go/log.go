package forgecore

// The core's log callback (fc_log_set): a record of every request (the fields of GitLab's
// api_json.log) and the core's warnings, one JSON object each. The callback is process-wide, as
// the core's is. The C side lives in logcb.go (the file with the //export).

/*
#include <stddef.h>
#include "forgecore.h"

extern void forgecoreGoLog(void *user_data, int level, char *json, size_t len);

static int forgecore_log_set(int level, int on) {
	return fc_log_set(level, on ? (void (*)(void *, int, const char *, size_t))forgecoreGoLog : NULL, NULL);
}

*/
import "C"

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"
)

// LogInfo is the level of request records (fc_log_set: 1 error, 2 warn, 3 info, 4 debug,
// 5 trace); warnings come with it.
const LogInfo = 3

// logFlushEvery bounds how long a line waits in the buffer: one write system call per line
// would cost a request on the host a measurable share of its time.
const logFlushEvery = 100 * time.Millisecond

var logSink struct {
	sync.Mutex
	w       *bufio.Writer
	flusher sync.Once
}

// flushLog writes out what the buffer holds.
func flushLog() {
	logSink.Lock()
	defer logSink.Unlock()
	if logSink.w != nil {
		_ = logSink.w.Flush()
	}
}

// LogTo writes what the core logs up to level to w, one JSON object a line: the record of
// every request and the core's warnings. Lines are buffered and written at least every 100 ms
// (and when LogTo is called again: LogTo(nil, 0) before exiting writes out the last ones). A
// nil w (or level 0) turns it off. The core calls back from any thread at once; lines are
// serialized here.
func LogTo(w io.Writer, level int) error {
	if level < 0 || level > 5 {
		return fmt.Errorf("log level %d is not between 0 and 5", level)
	}
	if w == nil || level == 0 {
		// The core first: fc_log_set waits for the callbacks under way, then the rest is written.
		C.forgecore_log_set(0, 0)
		logSink.Lock()
		if logSink.w != nil {
			_ = logSink.w.Flush()
		}
		logSink.w = nil
		logSink.Unlock()
		return nil
	}
	logSink.Lock()
	if logSink.w != nil {
		_ = logSink.w.Flush()
	}
	logSink.w = bufio.NewWriterSize(w, 64<<10)
	logSink.Unlock()
	logSink.flusher.Do(func() {
		go func() {
			for range time.Tick(logFlushEvery) {
				flushLog()
			}
		}()
	})
	if C.forgecore_log_set(C.int(level), 1) != 0 {
		return fmt.Errorf("fc_log_set refused level %d", level)
	}
	return nil
}

// logLine buffers one record and its newline; called by forgecoreGoLog with the core's
// borrowed text, copied here.
func logLine(record []byte) {
	logSink.Lock()
	defer logSink.Unlock()
	if logSink.w != nil {
		_, _ = logSink.w.Write(record)
		_ = logSink.w.WriteByte('\n')
	}
}
