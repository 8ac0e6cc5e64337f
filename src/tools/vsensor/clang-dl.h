/* SPDX-License-Identifier: MIT */
/*
 * clang-dl.h - libclang, loaded when vsensor's analysis first needs it (clang-dl.c), not
 * linked into the sonde CLI: linked, its 40 MB (libclang and libLLVM) were mapped by every
 * sonde command, 59 MB of peak RSS for `sonde --version`, 12 MB of it private dirty pages
 * (their relocations), in every rank's sonde process under MPI (the trial of 2026-11-27).
 * analysis.c calls libclang through vs_clang's pointers, named as the functions.
 */
#ifndef SONDE_VSENSOR_CLANG_DL_H
#define SONDE_VSENSOR_CLANG_DL_H

#include <stddef.h>
#include <clang-c/Index.h>

#define VS_CLANG_FUNCS(X) \
	X(clang_Cursor_Evaluate) \
	X(clang_Cursor_getArgument) \
	X(clang_Cursor_getNumArguments) \
	X(clang_Cursor_getStorageClass) \
	X(clang_Cursor_isFunctionInlined) \
	X(clang_EvalResult_dispose) \
	X(clang_EvalResult_getAsLongLong) \
	X(clang_EvalResult_getKind) \
	X(clang_Location_isFromMainFile) \
	X(clang_createIndex) \
	X(clang_disposeDiagnostic) \
	X(clang_disposeIndex) \
	X(clang_disposeString) \
	X(clang_disposeTokens) \
	X(clang_disposeTranslationUnit) \
	X(clang_equalCursors) \
	X(clang_equalTypes) \
	X(clang_formatDiagnostic) \
	X(clang_getCString) \
	X(clang_getCanonicalType) \
	X(clang_getCursorExtent) \
	X(clang_getCursorKind) \
	X(clang_getCursorLinkage) \
	X(clang_getCursorLocation) \
	X(clang_getCursorReferenced) \
	X(clang_getCursorSemanticParent) \
	X(clang_getCursorSpelling) \
	X(clang_getCursorType) \
	X(clang_getCursorUSR) \
	X(clang_getDiagnostic) \
	X(clang_getDiagnosticSeverity) \
	X(clang_getExpansionLocation) \
	X(clang_getFileName) \
	X(clang_getNumDiagnostics) \
	X(clang_getPointeeType) \
	X(clang_getRange) \
	X(clang_getRangeEnd) \
	X(clang_getRangeStart) \
	X(clang_getSpellingLocation) \
	X(clang_getTokenKind) \
	X(clang_getTokenLocation) \
	X(clang_getTokenSpelling) \
	X(clang_getTranslationUnitCursor) \
	X(clang_isCursorDefinition) \
	X(clang_getCursorDefinition) \
	X(clang_Cursor_isNull) \
	X(clang_isExpression) \
	X(clang_parseTranslationUnit2) \
	X(clang_tokenize) \
	X(clang_visitChildren)

struct vs_clang {
#define VS_CLANG_PTR(f) __typeof__(f) *f;
	VS_CLANG_FUNCS(VS_CLANG_PTR)
#undef VS_CLANG_PTR
};

extern struct vs_clang vs_clang;

/* Load libclang (once): 0, or -1 with why (a line: which library, which package) in err. */
int vs_clang_load(char *err, size_t len);

#endif /* SONDE_VSENSOR_CLANG_DL_H */
