// Package forgecore links the forgecore library (a GitLab-compatible /api/v4 for member roles
// and repositories over real git repositories) through cgo and hosts it over net/http.
//
// The package carries values, not behaviour: [Core.Do] hands one raw HTTP request to the
// core's fc_request and returns what the core answered; the typed methods call the core's
// typed exports with JSON arguments; [Handler] carries requests from net/http to [Core.Do]
// and the answers back. Routes, parameters, authentication and status codes all belong to the
// core.
//
//	core, err := forgecore.Open(forgecore.Config{DataDir: "/var/lib/forgecore"})
//	if err != nil { ... }
//	defer core.Close()
//	http.Handle("/api/v4/", forgecore.NewHandler(core))
//
// A Core may be used by any number of goroutines at once. Responses own C memory until they
// are closed: close every Response (a finalizer frees a forgotten one, eventually).
package forgecore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"sync"
	"unicode/utf8"
)

// ABIVersion is the version of the C ABI this package speaks; [Open] refuses a library whose
// fc_abi_version() differs.
const ABIVersion uint32 = 2

// Version is the forgecore release this package belongs to: the workspace version of
// Cargo.toml, which the library reports as the revision of GET /api/v4/version.
const Version = "0.1.0"

// DefaultMaxBodyBytes is the core's default request body limit (limits.max_body_bytes).
const DefaultMaxBodyBytes = 1 << 20

var (
	// ErrClosed is returned by calls on a Core after Close.
	ErrClosed = errors.New("forgecore: the instance is closed")
	// ErrABIMismatch is returned by Open when the linked library speaks another ABI version.
	ErrABIMismatch = errors.New("forgecore: the library's ABI version differs from the binding's")
	// ErrBodyClosed is returned by reading a response body after Close.
	ErrBodyClosed = errors.New("forgecore: read on a closed response body")
	// ErrBodyRead is returned when the core fails while producing a streamed body.
	ErrBodyRead = errors.New("forgecore: reading the response body failed")
	// ErrRequestBody is returned by Serve when reading the request body failed (the client
	// went away); the core has dropped the request.
	ErrRequestBody = errors.New("forgecore: reading the request body failed")
	// ErrInvalidArgument is returned for a method, target or configuration that cannot be
	// passed to C (a NUL byte in it).
	ErrInvalidArgument = errors.New("forgecore: argument contains a NUL byte")
)

// Config is the JSON configuration given to fc_open. Only DataDir is required; the nested
// sections are passed through as JSON (see "Configuration" in the README), e.g.
// Limits: json.RawMessage(`{"max_body_bytes": 4194304}`).
type Config struct {
	DataDir     string          `json:"data_dir"`
	ExternalURL string          `json:"external_url,omitempty"`
	RateLimits  json.RawMessage `json:"rate_limits,omitempty"`
	Features    json.RawMessage `json:"features,omitempty"`
	Limits      json.RawMessage `json:"limits,omitempty"`
	Maintenance json.RawMessage `json:"maintenance,omitempty"`
	// Hooks: where webhooks may point and how they are delivered (`hooks` in the README).
	Hooks json.RawMessage `json:"hooks,omitempty"`
}

// Error is a failure the core answered (fc_open refusing a configuration): its HTTP status
// and body.
type Error struct {
	Status int
	Body   []byte
}

func (e *Error) Error() string {
	var body struct {
		Message any `json:"message"`
	}
	if json.Unmarshal(e.Body, &body) == nil && body.Message != nil {
		return fmt.Sprintf("forgecore: %d: %v", e.Status, body.Message)
	}
	return fmt.Sprintf("forgecore: %d: %s", e.Status, e.Body)
}

// Auth is the caller of a typed operation: a personal access token, a CI job token, or
// neither (anonymous).
type Auth struct {
	PrivateToken string `json:"private_token,omitempty"`
	JobToken     string `json:"job_token,omitempty"`
}

// Core is one opened forgecore instance.
type Core struct {
	// mu is held for reading by every call in flight and for writing by Close, which so
	// waits for them and keeps later calls from touching a freed context.
	mu           sync.RWMutex
	ctx          *nativeCtx
	maxBodyBytes int64
}

// checkABI refuses a library whose ABI version differs from the binding's or the header's.
func checkABI(library, header, binding uint32) error {
	if library != binding || header != binding {
		return fmt.Errorf("%w: library %d, header %d, binding %d", ErrABIMismatch, library, header, binding)
	}
	return nil
}

// Open opens an instance: it checks the library's ABI version, then calls fc_open. A
// configuration the core refuses is an *Error with its status (400 or 500) and message.
func Open(config Config) (*Core, error) {
	text, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("forgecore: encoding the configuration: %w", err)
	}
	return OpenJSON(text)
}

// OpenJSON is [Open] with the configuration as JSON text, passed to fc_open as it is (a host
// reading an operator's configuration file uses it, so that every key reaches the core,
// which refuses unknown ones).
func OpenJSON(config []byte) (*Core, error) {
	if err := checkABI(libraryABIVersion(), headerABIVersion, ABIVersion); err != nil {
		return nil, err
	}
	if bytes.IndexByte(config, 0) >= 0 {
		return nil, ErrInvalidArgument
	}
	maxBody := int64(DefaultMaxBodyBytes)
	var limits struct {
		Limits struct {
			MaxBodyBytes *int64 `json:"max_body_bytes"`
		} `json:"limits"`
	}
	if json.Unmarshal(config, &limits) == nil && limits.Limits.MaxBodyBytes != nil {
		maxBody = *limits.Limits.MaxBodyBytes
	}
	ctx, failure := nativeOpen(cText(config))
	if failure != nil {
		response := takeResponse(failure)
		return nil, &Error{Status: response.Status, Body: response.data}
	}
	if ctx == nil {
		return nil, &Error{Status: 500, Body: []byte(`{"message":"fc_open returned neither a context nor an error"}`)}
	}
	core := &Core{ctx: ctx, maxBodyBytes: maxBody}
	runtime.SetFinalizer(core, (*Core).Close)
	return core, nil
}

// Close refuses new calls, waits for those in flight, then closes the context. Streamed
// bodies already handed out stay readable. Closing twice is a no-op.
func (c *Core) Close() error {
	c.mu.Lock()
	ctx := c.ctx
	c.ctx = nil
	c.mu.Unlock()
	if ctx != nil {
		runtime.SetFinalizer(c, nil)
		nativeClose(ctx)
	}
	return nil
}

// MaxBodyBytes is the request body limit of the configuration (limits.max_body_bytes), which
// the core enforces itself (Serve answers 413 past it).
func (c *Core) MaxBodyBytes() int64 {
	return c.maxBodyBytes
}

// call runs one C call on the open context.
func (c *Core) call(work func(ctx *nativeCtx) *nativeResponse) (*Response, error) {
	c.mu.RLock()
	if c.ctx == nil {
		c.mu.RUnlock()
		return nil, ErrClosed
	}
	raw := work(c.ctx)
	c.mu.RUnlock()
	runtime.KeepAlive(c)
	if raw == nil {
		return nil, errors.New("forgecore: the core returned a NULL response")
	}
	return wrapResponse(raw), nil
}

// Do serves one HTTP request: method, the raw request target as sent on the wire
// (`/api/v4/projects/a%2Fb/repository/tree?ref=main`: never a decoded path), the request
// headers and the body. The core answers every request, failures included, with a status;
// the error is only for a closed Core or an argument C cannot carry.
func (c *Core) Do(method, target string, header http.Header, body []byte) (*Response, error) {
	if hasNUL(method) || hasNUL(target) {
		return nil, ErrInvalidArgument
	}
	m, t, h := cText([]byte(method)), cText([]byte(target)), cText(appendHeaders(nil, header))
	return c.call(func(ctx *nativeCtx) *nativeResponse {
		return nativeRequest(ctx, m, t, h, body)
	})
}

// Meta is what a host knows about a request's connection and a client cannot forge: the
// peer's address ("203.0.113.9:5123", "[::1]:8080") and the scheme ("http" or "https").
// Empty fields say nothing.
type Meta struct {
	PeerAddr string `json:"peer_addr,omitempty"`
	Scheme   string `json:"scheme,omitempty"`
}

// Serve serves one HTTP request as the hosts do, through fc_call_open, fc_call_write and
// fc_call_finish: the body is read in pieces only as far as the core wants it (a body over
// the core's limit is answered 413 without being read to its end), with the connection's
// meta. It also returns how many body bytes it read. The error is for a closed Core, an
// argument C cannot carry, or a body that could not be read (ErrRequestBody).
func (c *Core) Serve(method, target string, header http.Header, body io.Reader, meta Meta) (*Response, int64, error) {
	if hasNUL(method) || hasNUL(target) || hasNUL(meta.PeerAddr) || hasNUL(meta.Scheme) {
		return nil, 0, ErrInvalidArgument
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, 0, err
	}
	mj, m, t, h := cText(metaJSON), cText([]byte(method)), cText([]byte(target)), cText(appendHeaders(nil, header))
	var read int64
	var bodyErr error
	response, err := c.call(func(ctx *nativeCtx) *nativeResponse {
		call, answer := nativeCallOpen(ctx, mj, m, t, h)
		if call == nil {
			return answer
		}
		if body != nil {
			buffer := copyBuffers.Get().(*[]byte)
			defer copyBuffers.Put(buffer)
			for {
				n, readErr := body.Read(*buffer)
				if n > 0 {
					read += int64(n)
					if answer := nativeCallWrite(call, (*buffer)[:n]); answer != nil {
						nativeCallFree(call)
						return answer
					}
				}
				if errors.Is(readErr, io.EOF) {
					break
				}
				if readErr != nil {
					bodyErr = readErr
					nativeCallFree(call)
					return nil
				}
			}
		}
		return nativeCallFinish(call)
	})
	if bodyErr != nil {
		return nil, read, fmt.Errorf("%w: %w", ErrRequestBody, bodyErr)
	}
	return response, read, err
}

// Admin runs one administrative command (`{"command": "user_add", "username": "alice"}`; the
// commands are listed in the README). Trusted: it runs with the authority of the data directory.
func (c *Core) Admin(command any) (*Response, error) {
	text, err := jsonArgument(command)
	if err != nil {
		return nil, err
	}
	return c.call(func(ctx *nativeCtx) *nativeResponse { return nativeAdmin(ctx, text) })
}

func (c *Core) typed(op typedOp, auth Auth, params any) (*Response, error) {
	a, err := jsonArgument(auth)
	if err != nil {
		return nil, err
	}
	p, err := jsonArgument(params)
	if err != nil {
		return nil, err
	}
	return c.call(func(ctx *nativeCtx) *nativeResponse { return nativeTyped(op, ctx, a, p) })
}

// The typed operations: JSON parameters in (a map or a struct; nil is {}), the same response
// as the HTTP route. Parameter names are those of the C exports in include/forgecore.h.

// MemberRolesList lists member roles: params {} or {"group": "<id or path>"}.
func (c *Core) MemberRolesList(auth Auth, params any) (*Response, error) {
	return c.typed(opMemberRolesList, auth, params)
}

// MemberRolesCreate creates a member role (name, base_access_level, flags, optional group).
func (c *Core) MemberRolesCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opMemberRolesCreate, auth, params)
}

// MemberRolesUpdate updates a role's name and/or description (member_role_id, optional group).
func (c *Core) MemberRolesUpdate(auth Auth, params any) (*Response, error) {
	return c.typed(opMemberRolesUpdate, auth, params)
}

// MemberRolesDelete deletes a role (member_role_id, optional group).
func (c *Core) MemberRolesDelete(auth Auth, params any) (*Response, error) {
	return c.typed(opMemberRolesDelete, auth, params)
}

// RepositoryTree lists a tree (project, ref, path, recursive, pagination parameters).
func (c *Core) RepositoryTree(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryTree, auth, params)
}

// RepositoryBlob answers a blob's metadata and Base64 content (project, sha).
func (c *Core) RepositoryBlob(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryBlob, auth, params)
}

// RepositoryRawBlob answers a blob's bytes as a streamed body (project, sha).
func (c *Core) RepositoryRawBlob(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryRawBlob, auth, params)
}

// RepositoryContributors lists contributors (project, ref, order_by, sort, pagination).
func (c *Core) RepositoryContributors(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryContributors, auth, params)
}

// RepositoryMergeBase answers the merge base of refs (project, refs: two or more).
func (c *Core) RepositoryMergeBase(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryMergeBase, auth, params)
}

// RepositoryCompare compares two refs (project, from, to, straight, unidiff, from_project_id).
func (c *Core) RepositoryCompare(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCompare, auth, params)
}

// ChangelogGenerate answers changelog notes (project, version, from, to, date, trailer,
// config_file).
func (c *Core) ChangelogGenerate(auth Auth, params any) (*Response, error) {
	return c.typed(opChangelogGenerate, auth, params)
}

// ChangelogCommit commits changelog notes (as ChangelogGenerate plus branch, file, message).
func (c *Core) ChangelogCommit(auth Auth, params any) (*Response, error) {
	return c.typed(opChangelogCommit, auth, params)
}

// RepositoryHealth answers the repository health report (project, generate).
func (c *Core) RepositoryHealth(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryHealth, auth, params)
}

// RepositoryFile answers a file at a ref with Base64 content and X-Gitlab-* headers (project, file_path, ref).
func (c *Core) RepositoryFile(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFile, auth, params)
}

// RepositoryFileRaw answers a file's bytes as a streamed body (project, file_path, ref, lfs).
func (c *Core) RepositoryFileRaw(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFileRaw, auth, params)
}

// RepositoryFileBlame answers a file's blame ranges (project, file_path, ref, range).
func (c *Core) RepositoryFileBlame(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFileBlame, auth, params)
}

// RepositoryFileCreate commits a new file (project, file_path, branch, commit_message, content, ...).
func (c *Core) RepositoryFileCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFileCreate, auth, params)
}

// RepositoryFileUpdate commits new content for a file (as RepositoryFileCreate, plus last_commit_id).
func (c *Core) RepositoryFileUpdate(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFileUpdate, auth, params)
}

// RepositoryFileDelete commits a file's removal (project, file_path, branch, commit_message, ...).
func (c *Core) RepositoryFileDelete(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryFileDelete, auth, params)
}

// RepositoryCommits lists commits as git log does (project, ref_name, since, until, path,
// author, all, first_parent, order, with_stats, trailers, page, per_page).
func (c *Core) RepositoryCommits(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommits, auth, params)
}

// RepositoryCommit answers one commit with its stats (project, sha, stats).
func (c *Core) RepositoryCommit(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommit, auth, params)
}

// RepositoryCommitDiff answers a commit's diff against its first parent (project, sha,
// unidiff, page, per_page).
func (c *Core) RepositoryCommitDiff(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommitDiff, auth, params)
}

// RepositoryCommitRefs lists the branches and tags that contain a commit (project, sha, type,
// page, per_page).
func (c *Core) RepositoryCommitRefs(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommitRefs, auth, params)
}

// RepositoryCommitSequence counts the commits reachable from a commit (project, sha,
// first_parent).
func (c *Core) RepositoryCommitSequence(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommitSequence, auth, params)
}

// RepositoryCommitCreate commits several file actions at once (project, branch, commit_message,
// actions, start_branch or start_sha, force, author_name, author_email, stats).
func (c *Core) RepositoryCommitCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opRepositoryCommitCreate, auth, params)
}

// ProjectsList lists the projects the caller may see (membership, min_access_level, owned, search,
// visibility, archived, order_by, sort, simple, id_after, id_before, pagination, page, per_page).
func (c *Core) ProjectsList(auth Auth, params any) (*Response, error) {
	return c.typed(opProjectsList, auth, params)
}

// GroupProjectsList lists a group's projects (group, include_subgroups, and ProjectsList's filters).
func (c *Core) GroupProjectsList(auth Auth, params any) (*Response, error) {
	return c.typed(opGroupProjectsList, auth, params)
}

// ProjectGet answers a project as the caller sees it (project).
func (c *Core) ProjectGet(auth Auth, params any) (*Response, error) {
	return c.typed(opProjectGet, auth, params)
}

// CurrentUser answers the signed-in caller (401 for anyone else).
func (c *Core) CurrentUser(auth Auth, params any) (*Response, error) {
	return c.typed(opCurrentUser, auth, params)
}

// UserGet answers a user (user_id).
func (c *Core) UserGet(auth Auth, params any) (*Response, error) {
	return c.typed(opUserGet, auth, params)
}

// BranchesList lists branches (project, search, regex, sort, pagination, page_token, page, per_page).
func (c *Core) BranchesList(auth Auth, params any) (*Response, error) {
	return c.typed(opBranchesList, auth, params)
}

// BranchGet answers one branch (project, branch).
func (c *Core) BranchGet(auth Auth, params any) (*Response, error) {
	return c.typed(opBranchGet, auth, params)
}

// BranchCreate creates a branch (project, branch, ref).
func (c *Core) BranchCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opBranchCreate, auth, params)
}

// BranchDelete deletes a branch (project, branch).
func (c *Core) BranchDelete(auth Auth, params any) (*Response, error) {
	return c.typed(opBranchDelete, auth, params)
}

// BranchesDeleteMerged deletes the branches merged into the default one, but protected ones (project).
func (c *Core) BranchesDeleteMerged(auth Auth, params any) (*Response, error) {
	return c.typed(opBranchesDeleteMerged, auth, params)
}

// TagsList lists tags (project, order_by, sort, search, pagination, page_token, page, per_page).
func (c *Core) TagsList(auth Auth, params any) (*Response, error) {
	return c.typed(opTagsList, auth, params)
}

// TagGet answers one tag (project, tag_name).
func (c *Core) TagGet(auth Auth, params any) (*Response, error) {
	return c.typed(opTagGet, auth, params)
}

// TagCreate creates a tag (project, tag_name, ref, message for an annotated tag).
func (c *Core) TagCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opTagCreate, auth, params)
}

// TagDelete deletes a tag (project, tag_name).
func (c *Core) TagDelete(auth Auth, params any) (*Response, error) {
	return c.typed(opTagDelete, auth, params)
}

// ProtectedBranchesList lists a project's protected branches (project, search, page, per_page).
func (c *Core) ProtectedBranchesList(auth Auth, params any) (*Response, error) {
	return c.typed(opProtectedBranchesList, auth, params)
}

// ProtectedBranchGet answers one protection (project, name).
func (c *Core) ProtectedBranchGet(auth Auth, params any) (*Response, error) {
	return c.typed(opProtectedBranchGet, auth, params)
}

// ProtectedBranchCreate protects a branch or pattern (project, name, push_access_level,
// merge_access_level, allow_force_push).
func (c *Core) ProtectedBranchCreate(auth Auth, params any) (*Response, error) {
	return c.typed(opProtectedBranchCreate, auth, params)
}

// ProtectedBranchDelete unprotects a branch or pattern (project, name).
func (c *Core) ProtectedBranchDelete(auth Auth, params any) (*Response, error) {
	return c.typed(opProtectedBranchDelete, auth, params)
}

// Response is the core's answer: status, headers and a body. Body is always set; a streamed
// body (archives, raw blobs) is produced by the core while it is read, through
// fc_response_read, with bounded memory. Close it when done.
type Response struct {
	Status   int
	Header   http.Header
	Body     io.ReadCloser
	Streamed bool
	data     []byte // the in-memory body, when not Streamed
}

// Bytes reads the whole body and closes it.
func (r *Response) Bytes() ([]byte, error) {
	if !r.Streamed {
		return r.data, nil
	}
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

// JSON decodes the whole body into v and closes it.
func (r *Response) JSON(v any) error {
	data, err := r.Bytes()
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Close frees what the response still holds.
func (r *Response) Close() error {
	return r.Body.Close()
}

// wrapResponse copies status and headers out of a raw response; an in-memory body is copied
// and the raw response freed at once, a streamed body keeps it until the stream is closed.
func wrapResponse(raw *nativeResponse) *Response {
	response := &Response{Status: responseStatus(raw), Header: parseHeaders(responseHeaders(raw))}
	if responseStreamed(raw) {
		stream := &streamBody{raw: raw}
		runtime.SetFinalizer(stream, (*streamBody).Close)
		response.Body, response.Streamed = stream, true
		return response
	}
	response.data = responseBody(raw)
	responseFree(raw)
	response.Body = io.NopCloser(bytes.NewReader(response.data))
	return response
}

// takeResponse is wrapResponse for a response read to its end at once.
func takeResponse(raw *nativeResponse) *Response {
	response := wrapResponse(raw)
	if response.Streamed {
		data, _ := response.Bytes()
		response.data, response.Streamed = data, false
		response.Body = io.NopCloser(bytes.NewReader(data))
	}
	return response
}

// parseHeaders turns the core's header object into an http.Header, keeping the names as the
// core spelled them.
func parseHeaders(text []byte) http.Header {
	header := http.Header{}
	if len(text) == 0 {
		return header
	}
	var fields map[string]string
	if json.Unmarshal(text, &fields) != nil {
		return header
	}
	for name, value := range fields {
		header[name] = []string{value}
	}
	return header
}

// streamBody reads a streamed body with fc_response_read straight into the caller's buffer
// and frees the raw response at the end, on an error, on Close or when collected.
type streamBody struct {
	mu  sync.Mutex
	raw *nativeResponse
	err error // what Read answers once raw is gone
}

func (s *streamBody) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		if s.err == nil {
			return 0, ErrBodyClosed
		}
		return 0, s.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := responseRead(s.raw, p)
	runtime.KeepAlive(s)
	switch {
	case n > 0:
		return n, nil
	case n == 0:
		s.release(io.EOF)
		return 0, io.EOF
	default:
		s.release(ErrBodyRead)
		return 0, ErrBodyRead
	}
}

// release frees the raw response; later reads answer err. Called with mu held.
func (s *streamBody) release(err error) {
	if s.raw != nil {
		responseFree(s.raw)
		s.raw = nil
		s.err = err
		runtime.SetFinalizer(s, nil)
	}
}

func (s *streamBody) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(ErrBodyClosed)
	return nil
}

// cText is text with a NUL terminator, for C.
func cText(text []byte) []byte {
	return append(text[:len(text):len(text)], 0)
}

func hasNUL(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] == 0 {
			return true
		}
	}
	return false
}

// jsonArgument is the NUL-terminated JSON text of a typed argument; nil is `{}`.
func jsonArgument(value any) ([]byte, error) {
	if value == nil {
		return []byte("{}\x00"), nil
	}
	text, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("forgecore: encoding an argument: %w", err)
	}
	return cText(text), nil
}

// appendHeaders appends the headers as a JSON array of [name, value] pairs, names sorted and
// values in their order, which keeps repeated headers apart.
func appendHeaders(out []byte, header http.Header) []byte {
	names := make([]string, 0, len(header))
	for name := range header {
		names = append(names, name)
	}
	sort.Strings(names)
	out = append(out, '[')
	first := true
	for _, name := range names {
		for _, value := range header[name] {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, '[')
			out = appendJSONString(out, name)
			out = append(out, ',')
			out = appendJSONString(out, value)
			out = append(out, ']')
		}
	}
	return append(out, ']')
}

// appendJSONString appends text as a JSON string; bytes that are not UTF-8 become U+FFFD.
func appendJSONString(out []byte, text string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(text); {
		b := text[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				out = append(out, '\\', b)
			case b < 0x20:
				out = append(out, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			default:
				out = append(out, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, text[i:i+size]...)
		}
		i += size
	}
	return append(out, '"')
}
