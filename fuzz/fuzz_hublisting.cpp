// libFuzzer harness: the Hub's listing (GET /api/models/{id}/revision/{rev}?blobs=true) through
// hub::parseListing and hub::selectFiles. A hostile listing must be refused with an error, never crash; an
// accepted one may only name plain relative paths (nothing derived from it can leave the cache) and a commit.

#include "hub/hublisting.h"
#include "hub/hubnames.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope::hub;
    QString error;
    const std::optional<HubListing> listing =
        parseListing(QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)), &error);
    if (!listing) {
        if (error.isEmpty()) std::abort();
        return 0;
    }
    if (!isCommitHash(listing->commit)) std::abort();
    for (const HubFile& f : listing->files)
        if (!repoPathProblem(f.path).isEmpty() || (f.isLfs() && f.lfsSha256.size() != 64)) std::abort();
    for (const QStringList& globs : {QStringList(), QStringList{QStringLiteral("*.gguf")}}) {
        const HubSelection selection = selectFiles(*listing, globs);
        if (selection.files.size() > listing->files.size()) std::abort();
    }
    return 0;
}
