#pragma once
// The output transaction: every file a run writes (labels, table, pictures,
// CSV) is written to a hidden temporary beside its target, checked, and only
// then do all of them take their names together. A failure or a handled
// signal before that leaves every earlier file as it was and no temporary
// behind. Also the file identity that outputs are compared by.
//
// How close to atomic the commit of several files is: each file is replaced
// by one rename(2) in its own folder, which POSIX makes atomic for that
// file. Several renames are not one atomic step (no file system call spans
// files), so the commit makes a mixed set as unlikely as it can:
//   - everything that can fail (writing, flushing, closing, the checks of
//     the targets) happens before the first rename;
//   - each replaced file is first hard-linked to a hidden backup, so that a
//     rename failing half-way restores the files already replaced;
//   - SIGINT, SIGTERM, SIGHUP and SIGPIPE (with installOutputSignalHandlers)
//     wait for the end of a commit before the process ends.
// What is left is a process killed outright (SIGKILL, power loss) between
// two renames of one commit, a window of a few system calls: some targets
// new, some old, and the backups of the old ones as hidden files
// '.NAME.glccl-PID-N.previous' beside them. A SIGKILL at any other time
// leaves at most hidden temporaries '.NAME.glccl-PID-N'; the next run that
// writes NAME removes those of processes that no longer run and names the
// backups it finds (OutputTransaction::notes). The data is not fsync'ed: a
// power failure may lose what the operating system had not yet written.

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace glccl {

// Which file a path names, by device and inode after following symbolic
// links and "..": two paths are one file exactly when their identities are
// equal. A path that does not exist yet is identified by its folder's
// identity and its last name, so two spellings of one new file are equal
// too.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    std::string name;  // empty for an existing file; the last name of a new one
    bool operator==(const FileIdentity& other) const {
        return device == other.device && inode == other.inode && name == other.name;
    }
    bool operator<(const FileIdentity& other) const;
};

// The identity of `path`; throws glccl::Error when neither the path nor its
// folder exists (a folder that does not exist cannot hold a new file).
FileIdentity fileIdentity(const std::string& path);

// Whether the two paths name one file (false when either cannot be
// identified).
bool sameFile(const std::string& a, const std::string& b);

// What `path` is when it exists and an output may not replace it, as a
// phrase for a sentence ("a FIFO", "a character device", "a directory", "a
// symbolic link to a missing file"); empty for a regular file (or a link to
// one) and for a path that does not exist. Only regular files are replaced.
std::string notReplaceableKind(const std::string& path);

// While an OutputTransaction is open, every file glccl's writers finish
// (writeLabelsNpy, writeStatsCsv, writePng, writeLabelImage, NpyLabelSink,
// NpyImageWriter, ...) waits as a hidden temporary until commit(). One is
// open in a process at a time: a second one opened meanwhile joins the
// first (its commit() does nothing; the outer one commits), so a library
// function can open its own and still be part of a caller's. Files closed
// by any thread while it is open join it. Not copyable.
class OutputTransaction {
public:
    OutputTransaction();
    ~OutputTransaction();  // without commit(): every temporary removed, no target touched
    OutputTransaction(const OutputTransaction&) = delete;
    OutputTransaction& operator=(const OutputTransaction&) = delete;

    // Gives every waiting file its name (see the top of this header). Throws
    // glccl::Error ("glccl::OutputTransaction::commit(): ...") when a target
    // changed meanwhile (now exists without overwrite, or is no longer a
    // regular file) or a rename fails; then every target is as it was.
    void commit();

    // Sentences about leftovers of interrupted runs found beside this run's
    // targets: temporaries removed, backups kept (see above).
    std::vector<std::string> notes() const;

private:
    bool outermost_ = false;
};

// Writes `text` to `path` all or nothing, as every writer of glccl does (a
// temporary beside it, renamed when complete; part of an open
// OutputTransaction). Throws glccl::Error ("glccl::writeTextFile(): ...")
// when `path` exists and `overwrite` is false, is not a regular file, or
// cannot be written.
void writeTextFile(const std::string& path, std::string_view text, bool overwrite);

// For programs: SIGINT, SIGTERM, SIGHUP and SIGPIPE remove this process's
// output temporaries, then end the process by the same signal (its exit
// status says so); a signal arriving during a commit takes effect after it,
// and says on stderr ("PROGRAM: SIGINT arrived while the outputs took their
// names; every output was written first, ...") that the outputs were
// written. A signal the process started with ignored (nohup's SIGHUP) stays
// ignored. SIGXFSZ is ignored, so that a file past `ulimit -f` fails its
// write with EFBIG and the run cleans up as after any write error. Installs
// handlers process-wide; call once at start-up. The library never calls it.
void installOutputSignalHandlers();

// For tests of programs: `pause` runs inside every commit, once the signals
// above wait for its end and before the first output takes its name, so
// that a test can send a signal during a commit. Empty (the default): none.
void setCommitPauseForTests(std::function<void()> pause);

}  // namespace glccl
