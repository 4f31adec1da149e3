<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>attnscope</name>
    <message numerus="yes">
        <source>%1 (%n thread(s), %2 kernels)</source>
        <translation>
            <numerusform>%1 (%n thread, %2 kernels)</numerusform>
            <numerusform>%1 (%n threads, %2 kernels)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::CorpusWindow</name>
    <message numerus="yes">
        <source>%n input(s) cut to the token limit.</source>
        <translation>
            <numerusform>%n input cut to the token limit.</numerusform>
            <numerusform>%n inputs cut to the token limit.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) of invalid UTF-8 skipped.</source>
        <translation>
            <numerusform>%n line of invalid UTF-8 skipped.</numerusform>
            <numerusform>%n lines of invalid UTF-8 skipped.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::ExportController</name>
    <message numerus="yes">
        <source>%n file(s) already exist, for example %1. Replace them?</source>
        <translation>
            <numerusform>%n file already exists: %1. Replace it?</numerusform>
            <numerusform>%n files already exist, for example %1. Replace them?</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::GenerateTab</name>
    <message numerus="yes">
        <source>Cancelled after %n token(s).</source>
        <translation>
            <numerusform>Cancelled after %n token.</numerusform>
            <numerusform>Cancelled after %n tokens.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Generated %n token(s).</source>
        <translation>
            <numerusform>Generated %n token.</numerusform>
            <numerusform>Generated %n tokens.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::GridPane</name>
    <message numerus="yes">
        <source>Scan done: %n head(s)</source>
        <translation>
            <numerusform>Scan done: %n head</numerusform>
            <numerusform>Scan done: %n heads</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sink or no-op head(s)</source>
        <translation>
            <numerusform>%n sink or no-op head</numerusform>
            <numerusform>%n sink or no-op heads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::HubDownloadFlow</name>
    <message numerus="yes">
        <source>%1 holds %n GGUF file(s): choose one.</source>
        <translation>
            <numerusform>%1 holds %n GGUF file: choose one.</numerusform>
            <numerusform>%1 holds %n GGUF files: choose one.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::LessonView</name>
    <message numerus="yes">
        <source>%1 random queries × %n key(s) each (as many as the lesson&apos;s tokens) = %2 scores. Spread of the scores: %3. Mean largest weight: %4 — %5.</source>
        <translation>
            <numerusform>%1 random queries × %n key each (as many as the lesson&apos;s tokens) = %2 scores. Spread of the scores: %3. Mean largest weight: %4 — %5.</numerusform>
            <numerusform>%1 random queries × %n keys each (as many as the lesson&apos;s tokens) = %2 scores. Spread of the scores: %3. Mean largest weight: %4 — %5.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::MainWindow</name>
    <message numerus="yes">
        <source>%n model(s) added from %1</source>
        <translation>
            <numerusform>%n model added from %1</numerusform>
            <numerusform>%n models added from %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::RunStateBanner</name>
    <message numerus="yes">
        <source>Run the first %n token(s)</source>
        <translation>
            <numerusform>Run the first %n token</numerusform>
            <numerusform>Run the first %n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Run the last %n token(s)</source>
        <translation>
            <numerusform>Run the last %n token</numerusform>
            <numerusform>Run the last %n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::SeriesChart</name>
    <message numerus="yes">
        <source>%n sink(s) + %1</source>
        <translation>
            <numerusform>%n sink + %1</numerusform>
            <numerusform>%n sinks + %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::StatusReadouts</name>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>attnscope::StreamingTab</name>
    <message numerus="yes">
        <source>%n sink(s)</source>
        <translation>
            <numerusform>%n sink</numerusform>
            <numerusform>%n sinks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) of the text</source>
        <translation>
            <numerusform>%n token of the text</numerusform>
            <numerusform>%n tokens of the text</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>At token %1 the cache of %2 holds %n token(s) (sinks in orange): </source>
        <translation>
            <numerusform>At token %1 the cache of %2 holds %n token (sinks in orange): </numerusform>
            <numerusform>At token %1 the cache of %2 holds %n tokens (sinks in orange): </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) of the text, a paragraph per line as the model was trained</source>
        <translation>
            <numerusform>%n token of the text, a paragraph per line as the model was trained</numerusform>
            <numerusform>%n tokens of the text, a paragraph per line as the model was trained</numerusform>
        </translation>
    </message>
</context>
</TS>
