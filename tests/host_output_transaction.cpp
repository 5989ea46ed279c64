// The output transaction (glccl/output_transaction.hpp): files wait as
// hidden temporaries until commit() and take their names together; a
// transaction left without commit() touches no target; only regular files
// are replaced; paths are compared by file identity. The .npy header
// parser refuses what numpy would not write. Expected contents are written
// here and read back with the C library, never with glccl's readers.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/output_transaction.hpp"

using Catch::Matchers::Contains;

namespace {

// A fresh folder under $TMPDIR, removed with everything in it.
struct ScratchFolder {
    ScratchFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "glccl-transaction-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~ScratchFolder() {
        std::error_code error;
        std::filesystem::remove_all(path, error);
    }
    std::string operator/(const std::string& name) const { return path + "/" + name; }
    // Names starting with ".": the temporaries and backups of the writers.
    int hiddenFiles() const {
        int count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(path))
            if (entry.path().filename().string()[0] == '.') ++count;
        return count;
    }
    std::string path;
};

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A folder whose a.csv holds "old a", and an open transaction that has
// written "new a" over it and "new b" as b.csv, which replaces an existing
// b.csv only where `overwriteB` says so. Resetting `transaction` ends it.
struct StagedOutputs {
    explicit StagedOutputs(bool overwriteB) {
        put(folder / "a.csv", "old a");
        transaction.emplace();
        glccl::writeTextFile(folder / "a.csv", "new a", true);
        glccl::writeTextFile(folder / "b.csv", "new b", overwriteB);
    }
    ScratchFolder folder;
    std::optional<glccl::OutputTransaction> transaction;
};

}  // namespace

TEST_CASE("output transaction: files take their names only at commit, all of them", "[host]") {
    StagedOutputs staged(false);
    const ScratchFolder& folder = staged.folder;
    CHECK(contents(folder / "a.csv") == "old a");
    CHECK_FALSE(std::filesystem::exists(folder / "b.csv"));
    CHECK(folder.hiddenFiles() == 2);
    staged.transaction->commit();
    staged.transaction.reset();
    CHECK(contents(folder / "a.csv") == "new a");
    CHECK(contents(folder / "b.csv") == "new b");
    CHECK(folder.hiddenFiles() == 0);
}

TEST_CASE("output transaction: without commit, every target as it was and no temporary", "[host]") {
    StagedOutputs staged(true);
    const ScratchFolder& folder = staged.folder;
    staged.transaction.reset();
    CHECK(contents(folder / "a.csv") == "old a");
    CHECK_FALSE(std::filesystem::exists(folder / "b.csv"));
    CHECK(folder.hiddenFiles() == 0);
}

TEST_CASE("output transaction: a target that changed before the commit fails it, leaving every file", "[host]") {
    StagedOutputs staged(false);
    const ScratchFolder& folder = staged.folder;
    // Someone else makes b.csv meanwhile: without overwrite it must stay theirs.
    put(folder / "b.csv", "theirs");
    CHECK_THROWS_WITH(staged.transaction->commit(), Contains("glccl::OutputTransaction::commit(): ") &&
                                                        Contains("'" + (folder / "b.csv") + "' already exists"));
    CHECK(contents(folder / "a.csv") == "old a");
    CHECK(contents(folder / "b.csv") == "theirs");
    CHECK(folder.hiddenFiles() == 0);
}

TEST_CASE("output transaction: a transaction opened inside another joins it", "[host]") {
    const ScratchFolder folder;
    glccl::OutputTransaction outer;
    {
        glccl::OutputTransaction inner;
        glccl::writeTextFile(folder / "a.csv", "a", false);
        inner.commit();  // the outer one commits
    }
    CHECK_FALSE(std::filesystem::exists(folder / "a.csv"));
    outer.commit();
    CHECK(contents(folder / "a.csv") == "a");
}

TEST_CASE("output files: only regular files are replaced, with or without overwrite", "[host]") {
    const ScratchFolder folder;
    REQUIRE(::mkfifo((folder / "pipe.csv").c_str(), 0600) == 0);
    std::filesystem::create_directory(folder / "dir.csv");
    std::filesystem::create_symlink("/dev/null", folder / "null.csv");
    std::filesystem::create_symlink(folder / "missing.csv", folder / "dangling.csv");
    for (const bool overwrite : {false, true}) {
        CHECK_THROWS_WITH(glccl::writeTextFile(folder / "pipe.csv", "x", overwrite),
                          Contains("is a FIFO (named pipe); only a regular file is replaced"));
        CHECK_THROWS_WITH(glccl::writeTextFile(folder / "dir.csv", "x", overwrite), Contains("is a directory"));
        CHECK_THROWS_WITH(glccl::writeTextFile(folder / "null.csv", "x", overwrite),
                          Contains("is a symbolic link to a character device"));
        CHECK_THROWS_WITH(glccl::writeTextFile(folder / "dangling.csv", "x", overwrite),
                          Contains("is a symbolic link to a missing file"));
    }
    struct stat info {};
    CHECK((::lstat((folder / "pipe.csv").c_str(), &info) == 0 && S_ISFIFO(info.st_mode)));
    CHECK(std::filesystem::is_symlink(folder / "null.csv"));
    CHECK(folder.hiddenFiles() == 0);
}

TEST_CASE("output files: a link to a regular file stays a link, the file it names is replaced", "[host]") {
    const ScratchFolder folder;
    put(folder / "target.csv", "old");
    std::filesystem::create_symlink("target.csv", folder / "link.csv");
    glccl::writeTextFile(folder / "link.csv", "new", true);
    CHECK(std::filesystem::is_symlink(folder / "link.csv"));
    CHECK(contents(folder / "target.csv") == "new");
}

TEST_CASE("file identity: one file by any spelling, new files included", "[host]") {
    const ScratchFolder folder;
    std::filesystem::create_directory(folder / "real");
    std::filesystem::create_directory_symlink("real", folder / "link");
    put(folder / "real/a.npy", "a");
    CHECK(glccl::sameFile(folder / "real/a.npy", folder / "link/a.npy"));
    CHECK(glccl::sameFile(folder / "real/a.npy", folder / "real/../real/./a.npy"));
    // Files that do not exist yet: the folder's identity and the name.
    CHECK(glccl::sameFile(folder / "real/new.npy", folder / "link/new.npy"));
    CHECK_FALSE(glccl::sameFile(folder / "real/new.npy", folder / "real/other.npy"));
    CHECK_FALSE(glccl::sameFile(folder / "real/a.npy", folder / "real/new.npy"));
    // A dangling link names the file it would create.
    std::filesystem::create_symlink("new.npy", folder / "real/alias.csv");
    CHECK(glccl::sameFile(folder / "real/alias.csv", folder / "real/new.npy"));
    CHECK_THROWS_WITH(glccl::fileIdentity(folder / "nowhere/x.npy"), Contains("does not exist"));
}

TEST_CASE("npy: a header numpy would not write is refused, not read differently", "[host]") {
    const ScratchFolder folder;
    const auto write = [&](const std::string& name, const std::string& dict) {
        std::string header = dict;
        header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
        header.push_back('\n');
        std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
        bytes.push_back(char(header.size() & 0xFF));
        bytes.push_back(char(header.size() >> 8));
        put(folder / name, bytes + header + std::string(77 * 61, '\1'));
        return folder / name;
    };
    CHECK_THROWS_WITH(
        glccl::readImage(write("twice.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (77, 61), "
                                            "'shape': (61, 77), }")),
        Contains("the key 'shape' twice in its header"));
    CHECK_THROWS_WITH(
        glccl::readImage(write("extra.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (77, 61), "
                                            "'order': 1, }")),
        Contains("has the key 'order' in its header"));
    const glccl::Image image =
        glccl::readImage(write("fine.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (77, 61), }"));
    CHECK(image.width == 61);
    CHECK(image.height == 77);
}
