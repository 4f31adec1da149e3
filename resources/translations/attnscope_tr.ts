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
<context>
    <name>attnscope::LessonModel</name>
    <message>
        <source>1. Scores</source>
        <translation>1. Skorlar</translation>
    </message>
    <message>
        <source>2. Scaling</source>
        <translation>2. Ölçekleme</translation>
    </message>
    <message>
        <source>S, not scaled (scaling is off)</source>
        <translation>S, ölçeklenmedi (ölçekleme kapalı)</translation>
    </message>
    <message>
        <source>(the head&apos;s scale)</source>
        <translation>(başlığın ölçeği)</translation>
    </message>
    <message>
        <source>(scaling is off)</source>
        <translation>(ölçekleme kapalı)</translation>
    </message>
    <message>
        <source>3. Mask</source>
        <translation>3. Maske</translation>
    </message>
    <message>
        <source>S&apos; + M, M = −∞ above the diagonal</source>
        <translation>S&apos; + M, köşegenin üstünde M = −∞</translation>
    </message>
    <message>
        <source>S&apos; (no mask: every token sees every token)</source>
        <translation>S&apos; (maske yok: her belirteç her belirteci görür)</translation>
    </message>
    <message>
        <source>(“%1” comes after “%2”: masked)</source>
        <translation>(“%1”, “%2” sözcüğünden sonra gelir: maskelendi)</translation>
    </message>
    <message>
        <source>(visible)</source>
        <translation>(görünür)</translation>
    </message>
    <message>
        <source>(no mask)</source>
        <translation>(maske yok)</translation>
    </message>
    <message>
        <source>4. Softmax</source>
        <translation>4. Softmax</translation>
    </message>
    <message>
        <source>(masked)</source>
        <translation>(maskelendi)</translation>
    </message>
    <message>
        <source>5. Weighted sum of the values</source>
        <translation>5. Değerlerin ağırlıklı toplamı</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonRopeDialsWidget</name>
    <message>
        <source>pair %1</source>
        <translation>çift %1</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonStepWidget</name>
    <message>
        <source>%1 → %2: %3</source>
        <translation>%1 → %2: %3</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonTokenTableModel</name>
    <message>
        <source>Token</source>
        <translation>Belirteç</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonView</name>
    <message>
        <source>%1: cannot write the file (%2)</source>
        <translation>%1: dosya yazılamıyor (%2)</translation>
    </message>
    <message>
        <source>Q, K and V directly</source>
        <translation>Doğrudan Q, K ve V</translation>
    </message>
    <message>
        <source>X with W_Q, W_K and W_V</source>
        <translation>X ile W_Q, W_K ve W_V</translation>
    </message>
    <message>
        <source>Input:</source>
        <translation>Girdi:</translation>
    </message>
    <message>
        <source>Tokens:</source>
        <translation>Belirteç sayısı:</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Belirteçler</translation>
    </message>
    <message>
        <source>Double-click a number to change it; every step is recomputed at once.</source>
        <translation>Bir sayıyı değiştirmek için çift tıklayın; her adım hemen yeniden hesaplanır.</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ Önceki</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>Sonraki ▶</translation>
    </message>
    <message>
        <source>Previous step (Left, Page Up)</source>
        <translation>Önceki adım (Sol, Page Up)</translation>
    </message>
    <message>
        <source>Next step (Right, Page Down)</source>
        <translation>Sonraki adım (Sağ, Page Down)</translation>
    </message>
    <message>
        <source>Large fonts (projector)</source>
        <translation>Büyük yazı (projeksiyon)</translation>
    </message>
    <message>
        <source>Save step as image…</source>
        <translation>Adımı görüntü olarak kaydet…</translation>
    </message>
    <message>
        <source>Save matrix as CSV…</source>
        <translation>Matrisi CSV olarak kaydet…</translation>
    </message>
    <message>
        <source>Save all steps…</source>
        <translation>Tüm adımları kaydet…</translation>
    </message>
    <message>
        <source>Point at a cell to see how its number was computed.</source>
        <translation>Sayısının nasıl hesaplandığını görmek için bir hücrenin üzerine gelin.</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>Ölçekleme</translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation>Nedensel maske</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>Konumlar</translation>
    </message>
    <message>
        <source>Multi-head</source>
        <translation>Çok başlıklı</translation>
    </message>
    <message>
        <source>Divide the scores by √d_k</source>
        <translation>Skorları √d_k ile böl</translation>
    </message>
    <message>
        <source>Random queries and keys with unit-variance components: their dot products grow with d_k. Without the scaling the softmax collapses onto one token.</source>
        <translation>Bileşenleri birim varyanslı rastgele sorgular ve anahtarlar: iç çarpımları d_k ile büyür. Ölçekleme olmadan softmax tek bir belirtece çöker.</translation>
    </message>
    <message>
        <source>d_k:</source>
        <translation>d_k:</translation>
    </message>
    <message>
        <source>Causal mask: a token sees only itself and the tokens before it</source>
        <translation>Nedensel maske: bir belirteç yalnızca kendisini ve kendinden önceki belirteçleri görür</translation>
    </message>
    <message>
        <source>The mask puts −∞ above the diagonal; e^−∞ = 0, so each row&apos;s weights are shared out again among the tokens it may see and still sum to 1.</source>
        <translation>Maske köşegenin üstüne −∞ koyar; e^−∞ = 0 olduğundan her satırın ağırlıkları görebildiği belirteçler arasında yeniden paylaştırılır ve toplamı yine 1 olur.</translation>
    </message>
    <message>
        <source>No positions</source>
        <translation>Konum yok</translation>
    </message>
    <message>
        <source>RoPE (rotary positions)</source>
        <translation>RoPE (döner konumlar)</translation>
    </message>
    <message>
        <source>Positions:</source>
        <translation>Konumlar:</translation>
    </message>
    <message>
        <source>RoPE base θ:</source>
        <translation>RoPE tabanı θ:</translation>
    </message>
    <message>
        <source>Shuffle the tokens</source>
        <translation>Belirteçleri karıştır</translation>
    </message>
    <message>
        <source>Heads h:</source>
        <translation>Başlık sayısı h:</translation>
    </message>
    <message>
        <source>Cannot open this head in the lesson: %1</source>
        <translation>Bu başlık derste açılamıyor: %1</translation>
    </message>
    <message>
        <source>Step %1 of %2: %3</source>
        <translation>Adım %1 / %2: %3</translation>
    </message>
    <message>
        <source>Scores q·k / √d_k</source>
        <translation>Skorlar q·k / √d_k</translation>
    </message>
    <message>
        <source>Scores q·k (not scaled)</source>
        <translation>Skorlar q·k (ölçeklenmedi)</translation>
    </message>
    <message>
        <source>the softmax has collapsed onto one token</source>
        <translation>softmax tek bir belirtece çöktü</translation>
    </message>
    <message>
        <source>the softmax is close to picking one token</source>
        <translation>softmax tek bir belirteci seçmeye yakın</translation>
    </message>
    <message>
        <source>the attention stays spread over several tokens</source>
        <translation>dikkat birkaç belirtece yayılmış kalıyor</translation>
    </message>
    <message>
        <source>%1 keys per query. Spread of the scores: %2. Mean largest weight: %3 — %4.</source>
        <translation>Sorgu başına %1 anahtar. Skorların yayılımı: %2. Ortalama en büyük ağırlık: %3 — %4.</translation>
    </message>
    <message>
        <source>Without the mask</source>
        <translation>Maskesiz</translation>
    </message>
    <message>
        <source>With the causal mask</source>
        <translation>Nedensel maskeyle</translation>
    </message>
    <message>
        <source>rows renormalised over the visible tokens</source>
        <translation>satırlar görünür belirteçler üzerinde yeniden normalleştirildi</translation>
    </message>
    <message>
        <source>Output, original order</source>
        <translation>Çıktı, özgün sıra</translation>
    </message>
    <message>
        <source>Output, tokens shuffled</source>
        <translation>Çıktı, belirteçler karıştırıldı</translation>
    </message>
    <message>
        <source>Every token&apos;s output row is the same, only in another order: without positions, attention does not see word order.</source>
        <translation>Her belirtecin çıktı satırı aynı, yalnızca sırası farklı: konum bilgisi olmadan dikkat sözcük sırasını görmez.</translation>
    </message>
    <message>
        <source>The rows change (by up to %1): RoPE turns each query and key by its position, so the scores depend on the order.</source>
        <translation>Satırlar değişiyor (en çok %1): RoPE her sorguyu ve anahtarı konumuna göre döndürür, bu yüzden skorlar sıraya bağlıdır.</translation>
    </message>
    <message>
        <source>The rows change (by up to %1): the causal mask depends on the order.</source>
        <translation>Satırlar değişiyor (en çok %1): nedensel maske sıraya bağlıdır.</translation>
    </message>
    <message>
        <source>d_model = %1, so each of the %2 heads has %3 dimensions: its own Q, K and V are columns of X·W_Q, X·W_K and X·W_V. The head outputs are concatenated and mixed by W_O.</source>
        <translation>d_model = %1, yani %2 başlığın her biri %3 boyutludur: kendi Q, K ve V&apos;si X·W_Q, X·W_K ve X·W_V&apos;nin sütunlarıdır. Başlık çıktıları art arda eklenir ve W_O ile karıştırılır.</translation>
    </message>
    <message>
        <source>Head %1: weights</source>
        <translation>Başlık %1: ağırlıklar</translation>
    </message>
    <message>
        <source>Concatenated head outputs</source>
        <translation>Art arda eklenmiş başlık çıktıları</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Çıktı</translation>
    </message>
    <message>
        <source>%1: cannot write the image (%2)</source>
        <translation>%1: görüntü yazılamıyor (%2)</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: klasör oluşturulamıyor</translation>
    </message>
    <message>
        <source>Save step as image</source>
        <translation>Adımı görüntü olarak kaydet</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG görüntüleri (*.png)</translation>
    </message>
    <message>
        <source>Save matrix as CSV</source>
        <translation>Matrisi CSV olarak kaydet</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV dosyaları (*.csv)</translation>
    </message>
    <message>
        <source>Save all steps into a folder</source>
        <translation>Tüm adımları bir klasöre kaydet</translation>
    </message>
    <message>
        <source>Save all steps</source>
        <translation>Tüm adımları kaydet</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonWindow</name>
    <message>
        <source>AttnScope — Lesson: attention step by step</source>
        <translation>AttnScope — Ders: adım adım dikkat</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Dosya</translation>
    </message>
    <message>
        <source>Save step as &amp;image…</source>
        <translation>Adımı &amp;görüntü olarak kaydet…</translation>
    </message>
    <message>
        <source>Save matrix as &amp;CSV…</source>
        <translation>Matrisi &amp;CSV olarak kaydet…</translation>
    </message>
    <message>
        <source>Save &amp;all steps…</source>
        <translation>&amp;Tüm adımları kaydet…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>&amp;Kapat</translation>
    </message>
    <message>
        <source>&amp;Lesson</source>
        <translation>D&amp;ers</translation>
    </message>
    <message>
        <source>&amp;Previous step</source>
        <translation>Ö&amp;nceki adım</translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation>&amp;Sonraki adım</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Görünüm</translation>
    </message>
    <message>
        <source>&amp;Large fonts (projector)</source>
        <translation>&amp;Büyük yazı (projeksiyon)</translation>
    </message>
    <message>
        <source>&amp;Full screen</source>
        <translation>&amp;Tam ekran</translation>
    </message>
</context>
</TS>
