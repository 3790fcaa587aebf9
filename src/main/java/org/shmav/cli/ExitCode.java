package org.shmav.cli;

/**
 * The exit codes of {@code shmav}, one per kind of outcome, so that scripts can tell them apart. The
 * usage help lists them from here.
 */
enum ExitCode
{
    OK(0, "success"),
    FAILED(1, "unexpected failure (an I/O error, a bug); the message says what"),
    USAGE(2, "usage error: unknown command or option, bad option value"),
    NOT_FOUND(3, "no such AV, directory, input file or entry (remove: nothing was removed)"),
    NOT_AN_AV(4, "the file is not a valid shmav AV; it was left untouched"),
    BAD_NAME(5, "not a valid AV name (empty, starts with '.', holds '/' or control characters, too long)"),
    EXISTS(6, "create: an AV of that name exists already (or a concurrent create of it won)"),
    IN_USE(7, "rm: the AV is open in a live process (use --force)"),
    PERMISSION(8, "permission denied"),
    PARTIAL(9, "insert: some addresses were not valid and were not inserted (each is listed with its error)"),
    NO_SPACE(10, "no space: the AV is full (insert: some addresses did not fit), or the directory's file system is"),
    BAD_INPUT(11, "insert: the input has lines that are not addresses; nothing was inserted");

    final int code;
    final String meaning;

    ExitCode(final int code, final String meaning)
    {
        this.code = code;
        this.meaning = meaning;
    }
}
