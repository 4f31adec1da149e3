<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
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
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
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
</TS>
