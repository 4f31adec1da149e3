<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="tr" sourcelanguage="en">
<context>
    <name>attnscope</name>
    <message>
        <source>“%1”</source>
        <translation>“%1”</translation>
    </message>
    <message>
        <source> + “%1”</source>
        <translation> + “%1”</translation>
    </message>
    <message>
        <source>all heads</source>
        <translation>tüm başlıklar</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>katman %1, başlık %2</translation>
    </message>
    <message>
        <source> · special tokens discounted</source>
        <translation> · özel belirteçler dışarıda</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: klasör oluşturulamıyor</translation>
    </message>
    <message>
        <source>%1: the file exists and was not overwritten</source>
        <translation>%1: dosya zaten var, üzerine yazılmadı</translation>
    </message>
    <message>
        <source>absolute (0–1)</source>
        <translation>mutlak (0–1)</translation>
    </message>
    <message>
        <source>divided by each row's maximum</source>
        <translation>her satırın en büyük değerine bölünmüş</translation>
    </message>
    <message>
        <source>log₁₀, from 10⁻⁴ to 1</source>
        <translation>log₁₀, 10⁻⁴ ile 1 arası</translation>
    </message>
    <message>
        <source>Colour map: %1 · scale: %2 · rows: queries, columns: keys</source>
        <translation>Renk haritası: %1 · ölçek: %2 · satırlar: sorgular, sütunlar: anahtarlar</translation>
    </message>
    <message>
        <source> · special tokens discounted (rows renormalised without them)</source>
        <translation> · özel belirteçler dışarıda (satırlar onlarsız yeniden normalleştirildi)</translation>
    </message>
    <message>
        <source>the scale factor must be above 0 and at most 16</source>
        <translation>ölçek çarpanı 0'dan büyük ve en çok 16 olmalı</translation>
    </message>
    <message>
        <source>the size %1×%2 is empty: give a width and a height of at least 1 pixel</source>
        <translation>%1×%2 boyutu boş: genişlik ve yükseklik en az 1 piksel olmalı</translation>
    </message>
    <message>
        <source>the size %1×%2 is too large: at most %3 pixels per side</source>
        <translation>%1×%2 boyutu çok büyük: her kenar en çok %3 piksel olabilir</translation>
    </message>
    <message>
        <source>%1: is a folder, not a file</source>
        <translation>%1: bir klasör, dosya değil</translation>
    </message>
    <message>
        <source>%1: the folder %2 does not exist</source>
        <translation>%1: %2 klasörü yok</translation>
    </message>
    <message>
        <source>%1: cannot write the file (%2)</source>
        <translation>%1: dosya yazılamıyor (%2)</translation>
    </message>
    <message>
        <source>%1: not enough memory for a %2×%3 image</source>
        <translation>%1: %2×%3 boyutunda bir görüntü için bellek yetmiyor</translation>
    </message>
    <message>
        <source>%1: cannot encode the PNG</source>
        <translation>%1: PNG kodlanamıyor</translation>
    </message>
    <message>
        <source>%1: not an image format</source>
        <translation>%1: bir görüntü biçimi değil</translation>
    </message>
    <message>
        <source>%1: unknown format; use one of .%2</source>
        <translation>%1: bilinmeyen biçim; şunlardan birini kullanın: .%2</translation>
    </message>
    <message>
        <source>Worked example, causal: softmax(QKᵀ/√4 + mask)</source>
        <translation>Çözümlü örnek, nedensel: softmax(QKᵀ/√4 + maske)</translation>
    </message>
    <message>
        <source>Worked example: softmax(QKᵀ/√4)</source>
        <translation>Çözümlü örnek: softmax(QKᵀ/√4)</translation>
    </message>
    <message>
        <source>row max</source>
        <translation>satır en büyüğü</translation>
    </message>
</context>
<context>
    <name>attnscope::BatchExportDialog</name>
    <message>
        <source>Export all heads</source>
        <translation>Tüm başlıkları dışa aktar</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
    <message>
        <source>Preparing…</source>
        <translation>Hazırlanıyor…</translation>
    </message>
    <message>
        <source>Wrote %1 (%2 of %3)</source>
        <translation>%1 yazıldı (%2 / %3)</translation>
    </message>
</context>
<context>
    <name>attnscope::ExportController</name>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 zaten var. Değiştirilsin mi?</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) already exist, for example %1. Replace them?</source>
        <translation>
            <numerusform>%n dosya zaten var, örneğin %1. Değiştirilsinler mi?</numerusform></translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>Dosyalar değiştirilsin mi?</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Dışa aktarma başarısız</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV numbers (*.csv);;JSON numbers (*.json);;NumPy array (*.npy)</source>
        <translation>PNG görüntüsü (*.png);;SVG çizimi (*.svg);;PDF belgesi (*.pdf);;CSV sayıları (*.csv);;JSON sayıları (*.json);;NumPy dizisi (*.npy)</translation>
    </message>
    <message>
        <source>Export heatmap</source>
        <translation>Isı haritasını dışa aktar</translation>
    </message>
    <message>
        <source>Export head grid</source>
        <translation>Başlık ızgarasını dışa aktar</translation>
    </message>
    <message>
        <source>Export all heads into folder</source>
        <translation>Tüm başlıkları bir klasöre aktar</translation>
    </message>
</context>
<context>
    <name>attnscope::HeatmapWidget</name>
    <message>
        <source>%1 → %2: masked (causal)</source>
        <translation>%1 → %2: maskeli (nedensel)</translation>
    </message>
    <message>
        <source>%1 → %2: %3</source>
        <translation>%1 → %2: %3</translation>
    </message>
</context>
<context>
    <name>attnscope::LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Dil</translation>
    </message>
    <message>
        <source>System default (%1)</source>
        <translation>Sistem varsayılanı (%1)</translation>
    </message>
</context>
<context>
    <name>attnscope::MainWindow</name>
    <message>
        <source>AttnScope</source>
        <translation>AttnScope</translation>
    </message>
    <message>
        <source>%1 tokens · backend: CPU</source>
        <translation>%1 belirteç · arka uç: CPU</translation>
    </message>
</context>
<context>
    <name>attnscope::PresenterMode</name>
    <message>
        <source>&amp;Presenter mode</source>
        <translation>&amp;Sunum kipi</translation>
    </message>
    <message>
        <source>Large fonts, high contrast and full screen for teaching with a projector</source>
        <translation>Projeksiyonla ders anlatmak için büyük yazı, yüksek karşıtlık ve tam ekran</translation>
    </message>
    <message>
        <source>&amp;Full screen</source>
        <translation>&amp;Tam ekran</translation>
    </message>
    <message>
        <source>Next head</source>
        <translation>Sonraki başlık</translation>
    </message>
    <message>
        <source>Previous head</source>
        <translation>Önceki başlık</translation>
    </message>
    <message>
        <source>Next layer</source>
        <translation>Sonraki katman</translation>
    </message>
    <message>
        <source>Previous layer</source>
        <translation>Önceki katman</translation>
    </message>
    <message>
        <source>Read-out</source>
        <translation>Değer göstergesi</translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation>Ö&amp;rnekler</translation>
    </message>
</context>
</TS>
