#include "output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/output_transaction.hpp"
#include "small_helpers.hpp"

namespace glccl {

namespace {


// ---------------------------------------------------------------- temporaries
// The temporaries of this process, in a table a signal handler can read:
// fixed slots, no allocation, no lock. A slot is free (0), being filled (1)
// or holds a path (2). A temporary that finds no free slot is still written
// and committed; only a signal cannot remove it (the next run does).
constexpr int kSlots = 256;
struct TemporarySlot {
    std::atomic<int> state{0};
    char path[PATH_MAX];
};
TemporarySlot gTemporaries[kSlots];

int registerTemporary(const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (int slot = 0; slot < kSlots; ++slot) {
        int expected = 0;
        if (!gTemporaries[slot].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(gTemporaries[slot].path, path.c_str(), path.size() + 1);
        gTemporaries[slot].state.store(2);
        return slot;
    }
    return -1;
}

void releaseTemporary(int slot) {
    if (slot >= 0) gTemporaries[slot].state.store(0);
}

// Async-signal-safe (stat() and unlink() only), the smallest file first: a
// SIGKILL may follow the signal closely (mpirun sends one to every rank once
// one has ended), and the unlink of a large file whose data is on the disk
// takes milliseconds; an unlink under way completes, so the slow one comes
// last.
void removeRegisteredTemporaries() {
    bool removed[kSlots] = {};
    for (;;) {
        int smallest = -1;
        off_t least = 0;
        for (int slot = 0; slot < kSlots; ++slot) {
            if (removed[slot] || gTemporaries[slot].state.load() != 2) continue;
            struct stat info {};
            const off_t size = ::stat(gTemporaries[slot].path, &info) == 0 ? info.st_size : 0;
            if (smallest < 0 || size < least) smallest = slot, least = size;
        }
        if (smallest < 0) return;
        removed[smallest] = true;
        ::unlink(gTemporaries[smallest].path);
    }
}

// A commit and a signal handler exclude each other: idle (0), committing
// (1), or ending the process on a signal (2). A signal during a commit is
// kept in gPendingSignal and acted on when the commit ends, so a handled
// signal never leaves a half-committed set of outputs.
std::atomic<int> gCommitState{0};
std::atomic<int> gPendingSignal{0};

[[noreturn]] void endBySignal(int signal) {
    removeRegisteredTemporaries();
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    ::_exit(128 + signal);
}

void onSignal(int signal) {
    int expected = 0;
    if (gCommitState.compare_exchange_strong(expected, 2)) endBySignal(signal);
    if (expected == 2) return;  // another thread is ending the process
    gPendingSignal.store(signal);
    // The commit may have ended between the two looks: then no one else acts.
    expected = 0;
    if (gCommitState.compare_exchange_strong(expected, 2)) endBySignal(signal);
}

void beginCommit() {
    int expected = 0;
    // A signal handler is ending the process: it ends this thread too.
    while (!gCommitState.compare_exchange_weak(expected, 1)) {
        expected = 0;
        ::pause();
    }
}

// Runs inside every commit when a program set it (setCommitPauseForTests).
std::function<void()>& commitPauseForTests() {
    static std::function<void()> pause;
    return pause;
}

// A signal that waited for the commit ends the process only now, after
// every output took its name: said on stderr, since the status alone (130
// for SIGINT) reads as "nothing was written".
void endCommit(bool committed) {
    gCommitState.store(0);
    const int signal = gPendingSignal.exchange(0);
    int expected = 0;
    if (signal == 0 || !gCommitState.compare_exchange_strong(expected, 2)) return;
    // SIGPIPE ends a run quietly, as by default; the others are said.
    const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGHUP ? "SIGHUP" : "";
    const char* outcome = committed ? "every output was written first"
                                    : "the commit failed and every earlier file was put back first";
    if (*name != '\0')
        std::fprintf(stderr, "%s: %s arrived while the outputs took their names; %s, then the run ends by it\n",
                     program_invocation_short_name, name, outcome);
    endBySignal(signal);
}

// ---------------------------------------------------------------- the open transaction
// One file waiting for its commit.
struct StagedFile {
    std::string path;       // as given, for messages
    std::string target;     // the file replaced
    std::string temporary;  // closed, complete
    bool overwrite = false;
    int slot = -1;
};

struct OpenTransaction {
    std::mutex mutex;
    bool open = false;
    std::vector<StagedFile> staged;
    std::vector<std::string> notes;
};
OpenTransaction& openTransaction() {
    static OpenTransaction transaction;
    return transaction;
}

void discardStaged(std::vector<StagedFile>& staged) {
    for (StagedFile& file : staged) {
        ::unlink(file.temporary.c_str());
        releaseTemporary(file.slot);
    }
    staged.clear();
}

bool exists(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

// Gives every staged file its target's name, all or none (see
// glccl/output_transaction.hpp); empties `staged` either way.
void commitStaged(const std::string& where, std::vector<StagedFile>& staged) {
    struct Done {
        const StagedFile* file;
        std::string backup;  // the replaced file's earlier version, or empty
        bool replaced;       // the target existed before
    };
    std::vector<Done> done;
    std::vector<std::string> backups;
    std::string failure;
    beginCommit();
    if (commitPauseForTests()) commitPauseForTests()();
    // What can be checked is checked before the first rename.
    for (const StagedFile& file : staged) {
        const std::string kind = notReplaceableKind(file.target);
        if (!kind.empty())
            failure = "cannot finish writing " + inQuotes(file.path) + ": it is " + kind +
                      "; only a regular file is replaced";
        else if (!file.overwrite && exists(file.target))
            failure = inQuotes(file.path) + " already exists; use --force (overwrite = true) to replace it";
        if (!failure.empty()) break;
    }
    for (std::size_t i = 0; failure.empty() && i < staged.size(); ++i) {
        const StagedFile& file = staged[i];
        const bool replaced = file.overwrite && exists(file.target);
        std::string backup;
        // A hard link keeps the earlier file reachable until the whole set is
        // committed; where links are not supported, that file cannot be
        // restored should a later rename fail.
        if (replaced && ::link(file.target.c_str(), (file.temporary + ".previous").c_str()) == 0) {
            backup = file.temporary + ".previous";
            backups.push_back(backup);
        }
        errno = 0;
        const bool named = file.overwrite ? ::rename(file.temporary.c_str(), file.target.c_str()) == 0
                                          : ::link(file.temporary.c_str(), file.target.c_str()) == 0;
        const int error = errno;
        if (named) {
            done.push_back({&file, backup, replaced});
            continue;
        }
        if (!backup.empty()) {
            ::unlink(backup.c_str());
            backups.pop_back();
        }
        failure = error == EEXIST && !file.overwrite
                      ? inQuotes(file.path) + " already exists; use --force (overwrite = true) to replace it"
                      : "cannot finish writing " + inQuotes(file.path) + ": " + std::strerror(error);
    }
    if (!failure.empty()) {
        // Back to the earlier files, last renamed first.
        for (auto it = done.rbegin(); it != done.rend(); ++it) {
            if (!it->backup.empty()) ::rename(it->backup.c_str(), it->file->target.c_str());
            else if (!it->replaced) ::unlink(it->file->target.c_str());
        }
    }
    for (const std::string& backup : backups) ::unlink(backup.c_str());
    discardStaged(staged);  // link() leaves the temporaries; rename() left none
    endCommit(failure.empty());
    if (!failure.empty()) throw Error(where + failure);
}

// The leftovers of interrupted runs in the folder of `target`, looked at
// once per folder and process: temporaries of processes that no longer run
// are removed, backups of an interrupted commit are named (they may hold the
// only copy of an earlier file).
void sweepLeftovers(const std::string& target, std::vector<std::string>* notes) {
    const std::filesystem::path path(target);
    const std::string folder = path.has_parent_path() ? path.parent_path().string() : ".";
    static std::set<std::string> swept;  // guarded by the transaction's mutex
    std::error_code error;
    const std::filesystem::path canonicalFolder = std::filesystem::canonical(folder, error);
    if (!swept.insert(error ? folder : canonicalFolder.string()).second) return;
    DIR* listing = ::opendir(folder.c_str());
    if (listing == nullptr) return;
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(listing))
        if (entry->d_name[0] == '.' && std::strstr(entry->d_name, ".glccl-") != nullptr) names.emplace_back(entry->d_name);
    ::closedir(listing);
    for (const std::string& name : names) {
        // ".NAME.glccl-PID-N" or ".NAME.glccl-PID-N.previous"
        const std::size_t marker = name.rfind(".glccl-");
        if (marker == 0 || marker == std::string::npos) continue;
        const char* rest = name.c_str() + marker + 7;
        char* end = nullptr;
        const long pid = std::strtol(rest, &end, 10);
        if (end == rest || *end != '-' || pid <= 0) continue;
        const char* serialStart = end + 1;
        std::strtoul(serialStart, &end, 10);
        if (end == serialStart) continue;
        const bool backup = std::strcmp(end, ".previous") == 0;
        if (*end != '\0' && !backup) continue;
        if (pid == long(::getpid()) || ::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;
        const std::string leftover = path.has_parent_path() ? (std::filesystem::path(folder) / name).string() : name;
        const std::string original = name.substr(1, marker - 1);
        if (backup) {
            if (notes)
                notes->push_back(inQuotes(leftover) + " holds the earlier " + inQuotes(original) +
                                 " of a run interrupted while it replaced its outputs (process " +
                                 std::to_string(pid) + "); kept: remove it, or rename it back");
        } else if (::unlink(leftover.c_str()) == 0 && notes) {
            notes->push_back("removed " + inQuotes(leftover) + ", a temporary of an interrupted run (process " +
                             std::to_string(pid) + ")");
        }
    }
}

std::string kindOf(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

// ---------------------------------------------------------------- identity

bool FileIdentity::operator<(const FileIdentity& other) const {
    return std::tie(device, inode, name) < std::tie(other.device, other.inode, other.name);
}

FileIdentity fileIdentity(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0) return {info.st_dev, info.st_ino, {}};
    // A new file: where a link points (a dangling link names the file it
    // would create), or the path itself; ".." and links of its folders are
    // resolved by the folder's own identity.
    std::error_code error;
    std::filesystem::path followed = std::filesystem::absolute(path, error);
    for (int hop = 0; hop < 40 && !error && std::filesystem::is_symlink(followed, error); ++hop) {
        const std::filesystem::path target = std::filesystem::read_symlink(followed, error);
        followed = target.is_absolute() ? target : followed.parent_path() / target;
    }
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(followed, error);
    const std::filesystem::path name = error ? std::filesystem::path(path).filename() : resolved.filename();
    const std::filesystem::path folder =
        error ? std::filesystem::path(path).parent_path() : resolved.parent_path();
    const std::string folderText = folder.empty() ? "." : folder.string();
    if (::stat(folderText.c_str(), &info) != 0)
        throw Error("glccl::fileIdentity(): folder " + inQuotes(folderText) + " of " + inQuotes(path) +
                    " does not exist");
    return {info.st_dev, info.st_ino, name.string()};
}

bool sameFile(const std::string& a, const std::string& b) {
    try {
        return fileIdentity(a) == fileIdentity(b);
    } catch (const Error&) {
        return false;
    }
}

std::string notReplaceableKind(const std::string& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return "";
    if (!S_ISLNK(info.st_mode)) return kindOf(info.st_mode);
    if (::stat(path.c_str(), &info) != 0) return "a symbolic link to a missing file";
    const std::string kind = kindOf(info.st_mode);
    return kind.empty() ? kind : "a symbolic link to " + kind;
}

// ---------------------------------------------------------------- transaction

OutputTransaction::OutputTransaction() {
    OpenTransaction& transaction = openTransaction();
    const std::lock_guard<std::mutex> lock(transaction.mutex);
    if (transaction.open) return;
    transaction.open = true;
    transaction.notes.clear();
    outermost_ = true;
}

OutputTransaction::~OutputTransaction() {
    if (!outermost_) return;
    OpenTransaction& transaction = openTransaction();
    const std::lock_guard<std::mutex> lock(transaction.mutex);
    discardStaged(transaction.staged);
    transaction.open = false;
}

void OutputTransaction::commit() {
    if (!outermost_) return;
    OpenTransaction& transaction = openTransaction();
    std::vector<StagedFile> staged;
    {
        const std::lock_guard<std::mutex> lock(transaction.mutex);
        staged.swap(transaction.staged);
    }
    commitStaged("glccl::OutputTransaction::commit(): ", staged);
}

std::vector<std::string> OutputTransaction::notes() const {
    OpenTransaction& transaction = openTransaction();
    const std::lock_guard<std::mutex> lock(transaction.mutex);
    return transaction.notes;
}

void writeTextFile(const std::string& path, std::string_view text, bool overwrite) {
    detail::OutputFile file("glccl::writeTextFile(): ", path, overwrite);
    file.write(text);
    file.close();
}

void installOutputSignalHandlers() {
    struct sigaction action {};
    action.sa_handler = onSignal;
    // The handler returns only while a commit runs; the calls it interrupted
    // elsewhere go on rather than fail with EINTR.
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    // A signal the process was started with ignored stays ignored: nohup's
    // SIGHUP, SIGINT of a job a shell started in the background. SIGPIPE (a
    // reader of stdout gone) ends the run as quietly as by default, but
    // without a temporary left.
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
        struct sigaction current {};
        if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        ::sigaction(signal, &action, nullptr);
    }
    // A file past the size limit (ulimit -f) is a write error, EFBIG, which
    // the writer reports and the transaction cleans up after, rather than a
    // signal that kills the process with its temporaries.
    ::signal(SIGXFSZ, SIG_IGN);
}

void setCommitPauseForTests(std::function<void()> pause) { commitPauseForTests() = std::move(pause); }

// ---------------------------------------------------------------- one file

namespace detail {

OutputFile::OutputFile(std::string where, const std::string& path, bool overwrite)
    : where_(std::move(where)), path_(path), target_(path), overwrite_(overwrite) {
    // With overwrite, a folder is refused when the finished file would take
    // its name (commitStaged); anything else that is not a regular file, at
    // once.
    const std::string kind = notReplaceableKind(path);
    if (!kind.empty() && (kind != "a directory" || !overwrite))
        throw Error(where_ + inQuotes(path) + " is " + kind + "; only a regular file is replaced");
    if (!overwrite && exists(path))
        throw Error(where_ + inQuotes(path) + " already exists; use --force (overwrite = true) to replace it");
    // A link to a regular file: the file it names is replaced, the link stays.
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
        std::error_code error;
        const std::filesystem::path resolved = std::filesystem::canonical(path, error);
        if (!error) target_ = resolved.string();
    }
    const std::filesystem::path target(target_);
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
    {
        OpenTransaction& transaction = openTransaction();
        const std::lock_guard<std::mutex> lock(transaction.mutex);
        sweepLeftovers(target_, transaction.open ? &transaction.notes : nullptr);
    }
    // A fresh name per attempt; O_EXCL never reuses a file, and the mode
    // 0666 lets the umask decide the permissions, as for any new file.
    static std::atomic<unsigned> serial{0};
    int descriptor = -1;
    for (int attempt = 0; attempt < 100 && descriptor < 0; ++attempt) {
        temporary_ = (folder / ("." + target.filename().string() + ".glccl-" + std::to_string(::getpid()) + "-" +
                                std::to_string(serial++)))
                         .string();
        errno = 0;
        descriptor = ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (descriptor < 0 && errno != EEXIST) break;
    }
    if (descriptor < 0) throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(errno));
    slot_ = registerTemporary(temporary_);
    file_ = ::fdopen(descriptor, "w+b");
    if (file_ == nullptr) {
        const int error = errno;
        ::close(descriptor);
        discard();
        throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(error));
    }
}

OutputFile::~OutputFile() {
    if (file_ == nullptr) return;
    std::fclose(file_);
    discard();
}

void OutputFile::discard() {
    ::unlink(temporary_.c_str());
    releaseTemporary(slot_);
    slot_ = -1;
}

void OutputFile::write(const void* data, std::size_t size) {
    if (size == 0) return;
    errno = 0;
    if (std::fwrite(data, 1, size, file_) != size) {
        throw Error(where_ + "cannot write " + inQuotes(path_) + ": " + std::strerror(errno));
    }
}

void OutputFile::close() {
    std::FILE* file = file_;
    file_ = nullptr;
    // The last buffered bytes reach the disk only now: a full disk is often
    // reported by fflush or fclose, not by fwrite.
    errno = 0;
    const bool flushed = std::fflush(file) == 0;
    int error = errno;
    const bool closed = std::fclose(file) == 0;
    if (flushed && !closed) error = errno;
    if (!flushed || !closed) {
        discard();
        throw Error(where_ + "cannot finish writing " + inQuotes(path_) + ": " + std::strerror(error));
    }
    std::vector<StagedFile> staged{{path_, target_, temporary_, overwrite_, slot_}};
    slot_ = -1;
    {
        OpenTransaction& transaction = openTransaction();
        const std::lock_guard<std::mutex> lock(transaction.mutex);
        if (transaction.open) {
            transaction.staged.push_back(std::move(staged.front()));
            return;
        }
    }
    commitStaged(where_, staged);
}

void checkLabeling(const std::string& where, const Labeling& labeling) {
    const bool depthFits = labeling.dimensions == 3 ? labeling.depth >= 1 : labeling.dimensions == 2 && labeling.depth == 1;
    if (labeling.width <= 0 || labeling.height <= 0 || !depthFits ||
        labeling.labels.size() != labeling.shape().count()) {
        throw Error(where + "invalid labeling: " + std::to_string(labeling.width) + "x" +
                    std::to_string(labeling.height) +
                    (labeling.dimensions == 3 ? "x" + std::to_string(labeling.depth) : std::string()) + " with " +
                    std::to_string(labeling.labels.size()) + " labels");
    }
}

}  // namespace detail
}  // namespace glccl
