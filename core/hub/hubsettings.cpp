#include "hub/hubsettings.h"

#include <QDir>
#include <QFile>

namespace attnscope::hub {

namespace {

bool isTrue(const QString& value)
{
    const QString upper = value.trimmed().toUpper();
    return upper == QLatin1String("1") || upper == QLatin1String("ON") || upper == QLatin1String("YES") ||
           upper == QLatin1String("TRUE");
}

} // namespace

QString huggingFaceHome()
{
    const QString home = qEnvironmentVariable("HF_HOME");
    if (!home.isEmpty()) return home;
    QString cache = qEnvironmentVariable("XDG_CACHE_HOME");
    if (cache.isEmpty()) cache = QDir::homePath() + QStringLiteral("/.cache");
    return cache + QStringLiteral("/huggingface");
}

QString hubCacheDir()
{
    for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
        const QString dir = qEnvironmentVariable(name);
        if (!dir.isEmpty()) return dir;
    }
    return huggingFaceHome() + QStringLiteral("/hub");
}

HubSettings HubSettings::fromEnvironment()
{
    HubSettings s;
    QString endpoint = qEnvironmentVariable("HF_ENDPOINT", QStringLiteral("https://huggingface.co"));
    while (endpoint.endsWith(QLatin1Char('/')))
        endpoint.chop(1);
    s.endpoint = QUrl(endpoint);
    s.cacheDir = hubCacheDir();
    s.offline = isTrue(qEnvironmentVariable("HF_HUB_OFFLINE"));
    for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"}) {
        const QByteArray token = qgetenv(name).trimmed();
        if (!token.isEmpty()) {
            s.token = token;
            s.tokenSource = QString::fromLatin1(name);
            return s;
        }
    }
    QString tokenPath = qEnvironmentVariable("HF_TOKEN_PATH");
    if (tokenPath.isEmpty()) tokenPath = huggingFaceHome() + QStringLiteral("/token");
    QFile file(tokenPath);
    if (file.open(QIODevice::ReadOnly)) {
        s.token = file.read(4096).trimmed();
        if (!s.token.isEmpty()) s.tokenSource = tokenPath;
    }
    return s;
}

} // namespace attnscope::hub
