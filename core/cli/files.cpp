// The file reader and writer every subcommand of `shardlab` shares
// (commands.h): the system's reason when a file cannot be opened, read or
// written, and a cap on what is read, checked before reading a regular file
// and while reading anything else (a device such as /dev/zero, a pipe).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/cli/commands.h"

namespace shardlab::cli {
namespace {

Status io_error(const std::string& path, const std::string& doing, int error) {
  return Status(StatusCode::kIoError,
                path + ": cannot " + doing + " (" + std::strerror(error) + ")");
}

// "16777216 bytes (16 MiB)", or "9 bytes".
std::string size_text(int64_t bytes) {
  const std::string text = std::to_string(bytes) + " bytes";
  if (bytes < (int64_t{1} << 20) || bytes % (int64_t{1} << 20) != 0) return text;
  return text + " (" + std::to_string(bytes >> 20) + " MiB)";
}

}  // namespace

Result<std::string> read_file(const std::string& path, int64_t max_bytes, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "open the file", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return io_error(path, "read the file", errno);
  if (S_ISDIR(info.st_mode)) return io_error(path, "read the file", EISDIR);
  const auto too_big = [&](const std::string& size) {
    return Status(StatusCode::kInvalidInput, path + ": expected " + what + " of at most " +
                                                 size_text(max_bytes) + ", found " + size);
  };
  const bool regular = S_ISREG(info.st_mode);
  if (regular && info.st_size > max_bytes) {
    return too_big(std::to_string(static_cast<int64_t>(info.st_size)) + " bytes");
  }
  std::string text;
  if (regular) text.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return io_error(path, "read the file", errno);
    }
    if (got == 0) break;
    if (static_cast<int64_t>(text.size()) + got > max_bytes) {
      return too_big(regular ? "more than " + std::to_string(max_bytes) + " bytes"
                             : "more than " + std::to_string(max_bytes) +
                                   " bytes (it is not a regular file: a device or a pipe?)");
    }
    text.append(buffer, static_cast<size_t>(got));
  }
  return text;
}

Status write_file(const std::string& path, const std::string& text, const std::string& what) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error(path, "write the " + what, errno);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = ::write(fd, text.data() + done, text.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return io_error(path, "write the " + what, error);
    }
    done += static_cast<size_t>(put);
  }
  if (::close(fd) != 0) return io_error(path, "write the " + what, errno);
  return Status::ok();
}

}  // namespace shardlab::cli
