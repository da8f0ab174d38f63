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
	"fmt"
	"io"
	"sync"
)

// LogInfo is the level of request records (fc_log_set: 1 error, 2 warn, 3 info, 4 debug,
// 5 trace); warnings come with it.
const LogInfo = 3

var logSink struct {
	sync.Mutex
	w io.Writer
}

// LogTo writes what the core logs up to level to w, one JSON object a line, each line in one
// Write: the record of every request and the core's warnings. A nil w (or level 0) turns it
// off. The core calls back from any thread at once; lines are serialized here.
func LogTo(w io.Writer, level int) error {
	if level < 0 || level > 5 {
		return fmt.Errorf("log level %d is not between 0 and 5", level)
	}
	logSink.Lock()
	logSink.w = w
	logSink.Unlock()
	on := 0
	if w != nil && level > 0 {
		on = 1
	}
	if C.forgecore_log_set(C.int(level), C.int(on)) != 0 {
		return fmt.Errorf("fc_log_set refused level %d", level)
	}
	return nil
}

// logLine writes one record; called by forgecoreGoLog.
func logLine(line []byte) {
	logSink.Lock()
	defer logSink.Unlock()
	if logSink.w != nil {
		_, _ = logSink.w.Write(line)
	}
}
