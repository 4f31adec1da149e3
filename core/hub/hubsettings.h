#pragma once

// Where the Hub is and where its files go, from the environment the official client reads
// (huggingface_hub constants.py, v0.19.4 and later): HF_ENDPOINT, HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME,
// HF_HUB_OFFLINE, HF_TOKEN and the token file. The token never comes from the command line and is never
// printed: messages say where it came from, not what it is.

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace attnscope::hub {

struct HubSettings
{
    QUrl endpoint;        // HF_ENDPOINT, default https://huggingface.co (no trailing '/')
    QString cacheDir;     // HF_HUB_CACHE, else $HF_HOME/hub, else ${XDG_CACHE_HOME:-~/.cache}/huggingface/hub
    QByteArray token;     // HF_TOKEN (or the older HUGGING_FACE_HUB_TOKEN), else the token file; may be empty
    QString tokenSource;  // "HF_TOKEN", the token file's path, or "" without a token
    bool offline = false; // HF_HUB_OFFLINE in 1/ON/YES/TRUE: no network at all

    static HubSettings fromEnvironment();
};

// $HF_HOME, else ${XDG_CACHE_HOME:-~/.cache}/huggingface.
QString huggingFaceHome();
// HF_HUB_CACHE, else the older HUGGINGFACE_HUB_CACHE, else huggingFaceHome()/hub: where downloads go and
// where the model picker looks (ModelCatalog::huggingFaceHubDir).
QString hubCacheDir();

} // namespace attnscope::hub
