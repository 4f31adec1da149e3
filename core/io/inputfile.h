#pragma once

// Every file AttnScope reads goes through here, so one set of rules holds for all of them: it must be a
// regular file (a symbolic link is followed to one), never a device, FIFO, socket or folder (/dev/zero
// would fill memory, a FIFO would block forever), and files read whole have a size limit. Problems come
// back as one line without the file name ("not a regular file: a character device"); each reader puts
// its file in front, in its own error type.

#include <QByteArray>
#include <QString>
#include <optional>

class QFile;
class QIODevice;

namespace attnscope {

// Limits for files read whole. JSON is parsed into a tree several times its size, so even a large
// tokenizer.json (Gemma's is 33 MB) stays far below this; anything bigger is damaged or hostile.
constexpr qint64 kMaxJsonFileBytes = qint64(64) << 20;       // config.json, tokenizer.json, index files
constexpr qint64 kMaxVocabularyFileBytes = qint64(64) << 20; // vocab.txt, merges.txt
constexpr qint64 kMaxSmallFileBytes = qint64(1) << 20;       // refs/main of the Hugging Face cache
constexpr qint64 kMaxNpyFileBytes = qint64(16) << 30;        // .npy read whole (tests, references)
// A census.json holds a few numbers per head, metric and position: about 10 MB for 80 layers x 64 heads.
constexpr qint64 kMaxCensusFileBytes = qint64(64) << 20;
// A text given whole (--text-file, standard input, the window's text files): Llama 3's 131,072 positions
// are about 0.6 MB of English, so 16 MiB is far past any model's window (and tokenizes in seconds).
constexpr qint64 kMaxTextFileBytes = qint64(16) << 20;

// Why `path` cannot be read as an input file, "" when it can: a regular file of at most maxBytes
// (maxBytes < 0: no limit). Says "file not found", "a symbolic link to X, which does not exist",
// "a folder, not a file", "not a regular file: a FIFO (named pipe)", "is 70.0 MiB, over the 64 MiB
// limit for this kind of file".
QString inputFileProblem(const QString& path, qint64 maxBytes = -1);

// The whole file, or nullopt with *problem set (inputFileProblem, or the system's reason it cannot be
// read). Never blocks on a FIFO and never reads more than maxBytes + 1 bytes.
std::optional<QByteArray> readInputFile(const QString& path, qint64 maxBytes, QString* problem);

// Everything `device` (opened for reading) gives until its end, read in chunks: nullopt with *problem set
// when it gives more than maxBytes (having read at most maxBytes + 1 bytes: an endless pipe stops there) or
// fails. readInputFile and standard input both read through here.
std::optional<QByteArray> readBoundedStream(QIODevice& device, qint64 maxBytes, QString* problem);

// Standard input, whole, within maxBytes (a pipe or a terminal as well as a file).
std::optional<QByteArray> readStandardInput(qint64 maxBytes, QString* problem);

// Opens `path` read-only after the same checks (for memory-mapping large files); false with *problem set.
bool openInputFile(QFile& file, const QString& path, QString* problem);

// What a path that exists but is neither a regular file nor a folder is (stat on Unix; Other elsewhere).
enum class SpecialFileKind { CharacterDevice, BlockDevice, Fifo, Socket, Other };
SpecialFileKind specialFileKind(const QString& path);

// "70.0 MiB", "512 bytes": sizes in messages.
QString byteSizeText(qint64 bytes);

} // namespace attnscope
