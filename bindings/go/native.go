package forgecore

// The only file that uses cgo. It turns Go values into the C arguments of include/forgecore.h
// and back, and owns every unsafe conversion; it decides nothing about HTTP or GitLab.
//
// Where the library comes from is the build's choice (link_checkout.go, link_system.go): this
// checkout's static library by default, an installed one found by pkg-config under the build
// tag forgecore_system.
//
// Strings are passed as NUL-terminated Go byte slices rather than C.CString copies: cgo keeps
// them alive for the call, they hold no Go pointers, and the core copies what it keeps.

/*
#include <string.h>
#include "forgecore.h"
*/
import "C"

import "unsafe"

// headerABIVersion is FC_ABI_VERSION of the header this package was compiled against.
const headerABIVersion = uint32(C.FC_ABI_VERSION)

type (
	nativeCtx      = C.fc_ctx
	nativeResponse = C.fc_response
	nativeCall     = C.fc_call
)

// typedOp names one typed export of the C ABI.
type typedOp int

const (
	opMemberRolesList typedOp = iota
	opMemberRolesCreate
	opMemberRolesUpdate
	opMemberRolesDelete
	opRepositoryTree
	opRepositoryBlob
	opRepositoryRawBlob
	opRepositoryContributors
	opRepositoryMergeBase
	opRepositoryCompare
	opChangelogGenerate
	opChangelogCommit
	opRepositoryHealth
	opRepositoryFile
	opRepositoryFileRaw
	opRepositoryFileBlame
	opRepositoryFileCreate
	opRepositoryFileUpdate
	opRepositoryFileDelete
	opRepositoryCommits
	opRepositoryCommit
	opRepositoryCommitDiff
	opRepositoryCommitRefs
	opRepositoryCommitSequence
	opRepositoryCommitCreate
	opProjectsList
	opGroupProjectsList
	opProjectGet
	opCurrentUser
	opUserGet
	opBranchesList
	opBranchGet
	opBranchCreate
	opBranchDelete
	opBranchesDeleteMerged
	opTagsList
	opTagGet
	opTagCreate
	opTagDelete
	opProtectedBranchesList
	opProtectedBranchGet
	opProtectedBranchCreate
	opProtectedBranchDelete
)

// libraryABIVersion is fc_abi_version() of the linked library.
func libraryABIVersion() uint32 {
	return uint32(C.fc_abi_version())
}

// cString points at a NUL-terminated Go byte slice (see the file comment).
func cString(text []byte) *C.char {
	return (*C.char)(unsafe.Pointer(&text[0]))
}

// cBytes is the (pointer, length) of a body; (NULL, 0) when it is empty.
func cBytes(data []byte) (*C.uint8_t, C.size_t) {
	if len(data) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(&data[0])), C.size_t(len(data))
}

// nativeOpen calls fc_open: a context, or the response saying why the configuration failed.
func nativeOpen(config []byte) (*nativeCtx, *nativeResponse) {
	var ctx *C.fc_ctx
	failure := C.fc_open(cString(config), &ctx)
	return ctx, failure
}

func nativeClose(ctx *nativeCtx) {
	C.fc_close(ctx)
}

func nativeRequest(ctx *nativeCtx, method, target, headers, body []byte) *nativeResponse {
	data, size := cBytes(body)
	return C.fc_request(ctx, cString(method), cString(target), cString(headers), data, size)
}

// nativeCallOpen calls fc_call_open: an answer at once, or a call that wants the body.
func nativeCallOpen(ctx *nativeCtx, meta, method, target, headers []byte) (*nativeCall, *nativeResponse) {
	var call *C.fc_call
	answer := C.fc_call_open(ctx, cString(meta), cString(method), cString(target), cString(headers), &call)
	return call, answer
}

// nativeCallWrite hands one piece of the body: nil to go on, or the answer now.
func nativeCallWrite(call *nativeCall, piece []byte) *nativeResponse {
	data, size := cBytes(piece)
	return C.fc_call_write(call, data, size)
}

// nativeCallFinish ends the body and frees the call: the answer.
func nativeCallFinish(call *nativeCall) *nativeResponse {
	return C.fc_call_finish(call)
}

// nativeCallFree abandons a call.
func nativeCallFree(call *nativeCall) {
	C.fc_call_free(call)
}

func nativeAdmin(ctx *nativeCtx, command []byte) *nativeResponse {
	return C.fc_admin(ctx, cString(command))
}

func nativeTyped(op typedOp, ctx *nativeCtx, auth, params []byte) *nativeResponse {
	a, p := cString(auth), cString(params)
	switch op {
	case opMemberRolesList:
		return C.fc_member_roles_list(ctx, a, p)
	case opMemberRolesCreate:
		return C.fc_member_roles_create(ctx, a, p)
	case opMemberRolesUpdate:
		return C.fc_member_roles_update(ctx, a, p)
	case opMemberRolesDelete:
		return C.fc_member_roles_delete(ctx, a, p)
	case opRepositoryTree:
		return C.fc_repository_tree(ctx, a, p)
	case opRepositoryBlob:
		return C.fc_repository_blob(ctx, a, p)
	case opRepositoryRawBlob:
		return C.fc_repository_raw_blob(ctx, a, p)
	case opRepositoryContributors:
		return C.fc_repository_contributors(ctx, a, p)
	case opRepositoryMergeBase:
		return C.fc_repository_merge_base(ctx, a, p)
	case opRepositoryCompare:
		return C.fc_repository_compare(ctx, a, p)
	case opChangelogGenerate:
		return C.fc_changelog_generate(ctx, a, p)
	case opChangelogCommit:
		return C.fc_changelog_commit(ctx, a, p)
	case opRepositoryHealth:
		return C.fc_repository_health(ctx, a, p)
	case opRepositoryFile:
		return C.fc_repository_file(ctx, a, p)
	case opRepositoryFileRaw:
		return C.fc_repository_file_raw(ctx, a, p)
	case opRepositoryFileBlame:
		return C.fc_repository_file_blame(ctx, a, p)
	case opRepositoryFileCreate:
		return C.fc_repository_file_create(ctx, a, p)
	case opRepositoryFileUpdate:
		return C.fc_repository_file_update(ctx, a, p)
	case opRepositoryFileDelete:
		return C.fc_repository_file_delete(ctx, a, p)
	case opRepositoryCommits:
		return C.fc_repository_commits(ctx, a, p)
	case opRepositoryCommit:
		return C.fc_repository_commit(ctx, a, p)
	case opRepositoryCommitDiff:
		return C.fc_repository_commit_diff(ctx, a, p)
	case opRepositoryCommitRefs:
		return C.fc_repository_commit_refs(ctx, a, p)
	case opRepositoryCommitSequence:
		return C.fc_repository_commit_sequence(ctx, a, p)
	case opRepositoryCommitCreate:
		return C.fc_repository_commit_create(ctx, a, p)
	case opProjectsList:
		return C.fc_projects_list(ctx, a, p)
	case opGroupProjectsList:
		return C.fc_group_projects_list(ctx, a, p)
	case opProjectGet:
		return C.fc_project_get(ctx, a, p)
	case opCurrentUser:
		return C.fc_user_current(ctx, a, p)
	case opUserGet:
		return C.fc_user_get(ctx, a, p)
	case opBranchesList:
		return C.fc_branches_list(ctx, a, p)
	case opBranchGet:
		return C.fc_branch_get(ctx, a, p)
	case opBranchCreate:
		return C.fc_branch_create(ctx, a, p)
	case opBranchDelete:
		return C.fc_branch_delete(ctx, a, p)
	case opBranchesDeleteMerged:
		return C.fc_branches_delete_merged(ctx, a, p)
	case opTagsList:
		return C.fc_tags_list(ctx, a, p)
	case opTagGet:
		return C.fc_tag_get(ctx, a, p)
	case opTagCreate:
		return C.fc_tag_create(ctx, a, p)
	case opTagDelete:
		return C.fc_tag_delete(ctx, a, p)
	case opProtectedBranchesList:
		return C.fc_protected_branches_list(ctx, a, p)
	case opProtectedBranchGet:
		return C.fc_protected_branch_get(ctx, a, p)
	case opProtectedBranchCreate:
		return C.fc_protected_branch_create(ctx, a, p)
	case opProtectedBranchDelete:
		return C.fc_protected_branch_delete(ctx, a, p)
	}
	panic("forgecore: unknown typed operation")
}

func responseStatus(r *nativeResponse) int {
	return int(C.fc_response_status(r))
}

// responseHeaders copies the headers JSON out of the response.
func responseHeaders(r *nativeResponse) []byte {
	text := C.fc_response_headers(r)
	if text == nil {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(text), C.int(C.strlen(text)))
}

func responseStreamed(r *nativeResponse) bool {
	return C.fc_response_streamed(r) != 0
}

// responseBody copies an in-memory body out of the response.
func responseBody(r *nativeResponse) []byte {
	var size C.size_t
	data := C.fc_response_body(r, &size)
	if data == nil || size == 0 {
		return nil
	}
	out := make([]byte, int(size))
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size)))
	return out
}

// responseRead copies the next bytes of the body straight into buf: their count, 0 at the end,
// -1 on an error.
func responseRead(r *nativeResponse, buf []byte) int {
	if len(buf) == 0 {
		return 0
	}
	return int(C.fc_response_read(r, (*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(len(buf))))
}

func responseFree(r *nativeResponse) {
	C.fc_response_free(r)
}
