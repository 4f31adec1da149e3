#include "core/support/kernelvariantrows.h"

#include "kernels/cpukernelselection.h"

#include <QtTest>

void addKernelVariantRows()
{
    QTest::addColumn<QString>("variant");
    for (const QString& variant : attnscope::kernels::builtCpuKernelVariants())
        QTest::newRow(qPrintable(variant)) << variant;
}

const attnscope::kernels::CpuKernels* kernelsOfVariant(const QString& variant)
{
    QString error;
    return attnscope::kernels::loadCpuKernelVariant(variant, &error).kernels;
}
