<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="tr" sourcelanguage="en">
<context>
    <name>ModelLimitNotes</name>
    <message>
        <source>Too small to show sinks or [SEP] heads: no head puts %1 or more on the first token or [SEP] (at most %2). %3 in the Get a model tab does.</source>
        <translation>Kuyu ya da [SEP] kafası gösteremeyecek kadar küçük: hiçbir kafa ilk token&apos;a ya da [SEP]&apos;e %1 ya da daha fazlasını vermiyor (en çok %2). Model edin sekmesindeki %3 gösterir.</translation>
    </message>
    <message>
        <source>Too small to show a heavy [SEP] weight with a small contribution: the special tokens&apos; share is %1 by weight and %2 by norm. %3 in the Get a model tab shows it.</source>
        <translation>Ağır bir [SEP] ağırlığının küçük katkısını gösteremeyecek kadar küçük: özel token&apos;ların payı ağırlıkla %1, normla %2. Model edin sekmesindeki %3 bunu gösterir.</translation>
    </message>
    <message>
        <source>Too small to guess well: %1 parameters (about %2 are needed). %3 in the Get a model tab guesses sensibly.</source>
        <translation>İyi tahmin edemeyecek kadar küçük: %1 parametre (yaklaşık %2 gerekir). Model edin sekmesindeki %3 anlamlı tahminler yapar.</translation>
    </message>
</context>
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
        <translation>tüm kafalar</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>katman %1, kafa %2</translation>
    </message>
    <message>
        <source> · special tokens discounted</source>
        <translation> · özel token&apos;lar dışarıda</translation>
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
        <source>divided by each row&apos;s maximum</source>
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
        <translation> · özel token&apos;lar dışarıda (satırlar onlarsız yeniden normalleştirildi)</translation>
    </message>
    <message>
        <source>the scale factor must be above 0 and at most 16</source>
        <translation>ölçek çarpanı 0&apos;dan büyük ve en çok 16 olmalı</translation>
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
    <message>
        <source>%1 · layer %2 head %3 (%4)</source>
        <translation>%1 · katman %2 kafa %3 (%4)</translation>
    </message>
    <message>
        <source>sink</source>
        <translation>kuyu</translation>
    </message>
    <message>
        <source>no-op/[SEP]</source>
        <translation>işlemsiz/[SEP]</translation>
    </message>
    <message>
        <source>previous-token</source>
        <translation>önceki token</translation>
    </message>
    <message>
        <source>next-token</source>
        <translation>sonraki token</translation>
    </message>
    <message>
        <source>self</source>
        <translation>kendisi</translation>
    </message>
    <message>
        <source>broad</source>
        <translation>yaygın</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>karışık</translation>
    </message>
    <message>
        <source>Entropy (nats)</source>
        <translation>Entropi (nat)</translation>
    </message>
    <message>
        <source>Entropy (normalised)</source>
        <translation>Entropi (normalleştirilmiş)</translation>
    </message>
    <message>
        <source>Sink mass (first token)</source>
        <translation>Kuyu kütlesi (ilk token)</translation>
    </message>
    <message>
        <source>Sink mass (first 4)</source>
        <translation>Kuyu kütlesi (ilk 4)</translation>
    </message>
    <message>
        <source>[SEP] mass</source>
        <translation>[SEP] kütlesi</translation>
    </message>
    <message>
        <source>[CLS] mass</source>
        <translation>[CLS] kütlesi</translation>
    </message>
    <message>
        <source>Self</source>
        <translation>Kendisi</translation>
    </message>
    <message>
        <source>Previous token</source>
        <translation>Önceki token</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>Sonraki token</translation>
    </message>
    <message>
        <source>Synthetic decoder demo (no weights)</source>
        <translation>Yapay kod çözücü örneği (ağırlıksız)</translation>
    </message>
    <message>
        <source>Synthetic encoder demo (no weights)</source>
        <translation>Yapay kodlayıcı örneği (ağırlıksız)</translation>
    </message>
    <message>
        <source>Worked example: kedi mindere oturdu</source>
        <translation>Çözümlü örnek: kedi mindere oturdu</translation>
    </message>
    <message>
        <source>this view shows a pooled overview, not the weights themselves; zoom in until exact values are shown, or use attnscope export</source>
        <translation>bu görünüm ağırlıkların kendisini değil, birleştirilmiş bir özeti gösteriyor; tam değerler görünene kadar yakınlaştırın ya da attnscope export komutunu kullanın</translation>
    </message>
    <message>
        <source>%1: the grid holds pooled thumbnails, not every weight</source>
        <translation>%1: ızgarada her ağırlık değil, birleştirilmiş küçük resimler var</translation>
    </message>
    <message>
        <source>%1: not an image format; use .png, .svg or .pdf</source>
        <translation>%1: bir görüntü biçimi değil; .png, .svg veya .pdf kullanın</translation>
    </message>
    <message>
        <source>a character device</source>
        <translation>bir karakter aygıtı</translation>
    </message>
    <message>
        <source>a block device</source>
        <translation>bir blok aygıtı</translation>
    </message>
    <message>
        <source>a FIFO (named pipe)</source>
        <translation>bir FIFO (adlandırılmış boru)</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>bir soket</translation>
    </message>
    <message>
        <source>a device, FIFO or socket</source>
        <translation>bir aygıt, FIFO veya soket</translation>
    </message>
    <message>
        <source>the output would be about %1, over the limit of %2 (raise it with --max-output-size)</source>
        <translation>çıktı yaklaşık %1 olurdu, %2 sınırının üstünde (--max-output-size ile yükseltin)</translation>
    </message>
    <message>
        <source>no output file given</source>
        <translation>çıktı dosyası verilmedi</translation>
    </message>
    <message>
        <source>%1: a symbolic link to %2, which does not exist</source>
        <translation>%1: var olmayan %2 dosyasına sembolik bağ</translation>
    </message>
    <message>
        <source>%1: not a regular file but %2; AttnScope writes only regular files</source>
        <translation>%1: normal bir dosya değil, %2; AttnScope yalnızca normal dosyalara yazar</translation>
    </message>
    <message>
        <source>not open</source>
        <translation>açık değil</translation>
    </message>
    <message>
        <source>cannot write to standard output: %1</source>
        <translation>standart çıktıya yazılamıyor: %1</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%%1</translation>
    </message>
    <message>
        <source>synthetic %1, %2 layers × %3 heads</source>
        <translation>yapay %1, %2 katman × %3 kafa</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>kod çözücü</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>kodlayıcı</translation>
    </message>
    <message>
        <source>%1 %2, %3 layers × %4 heads</source>
        <translation>%1 %2, %3 katman × %4 kafa</translation>
    </message>
    <message>
        <source>worked example, 1 layer × 1 head, d = 4</source>
        <translation>çözümlü örnek, 1 katman × 1 kafa, d = 4</translation>
    </message>
    <message>
        <source> · last %1 of %2 tokens</source>
        <translation> · %2 token&apos;ın son %1 tanesi</translation>
    </message>
    <message>
        <source> · first %1 of %2 tokens</source>
        <translation> · %2 token&apos;ın ilk %1 tanesi</translation>
    </message>
    <message>
        <source> · words (to: sum of pieces, from: mean)</source>
        <translation> · sözcükler (sözcüğe: parçaların toplamı, sözcükten: ortalaması)</translation>
    </message>
    <message>
        <source>%1 tokens &gt; %2 positions of %3</source>
        <translation>%1 token &gt; %3 modelinin %2 konumu</translation>
    </message>
    <message>
        <source>%1 parameters · needs ≈ %2 at %3 tokens</source>
        <translation>%1 parametre · %3 token için ≈ %2 bellek gerekir</translation>
    </message>
    <message>
        <source>%1 is not loaded: it needs about %2 (%3 of weights, %4 working memory at %5 tokens) but only %6 is available (MemAvailable in /proc/meminfo).</source>
        <translation>%1 yüklenmedi: yaklaşık %2 bellek gerekiyor (%3 ağırlık, %5 token için %4 çalışma belleği) ama yalnızca %6 boş (/proc/meminfo içindeki MemAvailable).</translation>
    </message>
    <message>
        <source>contribution ‖αf(x)‖</source>
        <translation>katkı ‖αf(x)‖</translation>
    </message>
    <message>
        <source>attention weight α</source>
        <translation>dikkat ağırlığı α</translation>
    </message>
    <message>
        <source>share of the row&apos;s ‖αf(x)‖, not a probability</source>
        <translation>satırın ‖αf(x)‖ toplamındaki pay, olasılık değil</translation>
    </message>
    <message>
        <source>The contribution ‖αf(x)‖ needs a real model&apos;s value vectors; this demo has none.</source>
        <translation>Katkı ‖αf(x)‖ gerçek bir modelin değer vektörlerini ister; bu örnekte yok.</translation>
    </message>
    <message>
        <source>Nothing is shown yet.</source>
        <translation>Henüz gösterilen bir şey yok.</translation>
    </message>
    <message>
        <source>The residual stream needs a real model; this demo has none.</source>
        <translation>Artık akış gerçek bir model ister; bu örnekte yok.</translation>
    </message>
    <message>
        <source>%1 · rollout over %2 layers · %3</source>
        <translation>%1 · %2 katman boyunca rollout · %3</translation>
    </message>
    <message>
        <source>contribution-weighted ‖αf(x)‖</source>
        <translation>katkı ağırlıklı ‖αf(x)‖</translation>
    </message>
    <message>
        <source>share of what the token draws on (rows sum to 1)</source>
        <translation>token&apos;ın dayandığı kaynaklardaki pay (satır toplamı 1)</translation>
    </message>
    <message>
        <source>into L%1</source>
        <translation>L%1 girişi</translation>
    </message>
    <message>
        <source>output</source>
        <translation>çıkış</translation>
    </message>
    <message>
        <source>%1 · residual stream · %2</source>
        <translation>%1 · artık akış · %2</translation>
    </message>
    <message>
        <source>largest |activation|</source>
        <translation>en büyük |aktivasyon|</translation>
    </message>
    <message>
        <source>norm ‖x‖</source>
        <translation>norm ‖x‖</translation>
    </message>
    <message>
        <source>per layer, against its largest token</source>
        <translation>her katmanda, en büyük token&apos;a göre</translation>
    </message>
    <message>
        <source>Punctuation mass</source>
        <translation>Noktalama kütlesi</translation>
    </message>
    <message>
        <source>on the CPU: the head scan does not use %1</source>
        <translation>işlemcide (CPU): kafa taraması %1 kullanmıyor</translation>
    </message>
    <message>
        <source>%1: the page was enlarged from %2×%3 to %4×%5 px so that every head&apos;s number fits on its thumbnail (%6 layers × %7 heads)</source>
        <translation>%1: sayfa %2×%3 pikselden %4×%5 piksele büyütüldü; böylece her kafanın numarası kendi küçük resmine sığıyor (%6 katman × %7 kafa)</translation>
    </message>
    <message>
        <source>queries %1–%2 × keys %3–%4 of %5</source>
        <translation>%5 token&apos;ın sorguları %1–%2 × anahtarları %3–%4</translation>
    </message>
    <message>
        <source>BOS mass</source>
        <translation>BOS kütlesi</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n thread(s), %2 kernels)</source>
        <translation>
            <numerusform>%1 (%n iş parçacığı, %2 çekirdekleri)</numerusform>
        </translation>
    </message>
    <message>
        <source>unterminated object</source>
        <translation>kapanmamış nesne</translation>
    </message>
    <message>
        <source>missing name separator</source>
        <translation>ad ayırıcı (:) eksik</translation>
    </message>
    <message>
        <source>unterminated array</source>
        <translation>kapanmamış dizi</translation>
    </message>
    <message>
        <source>missing value separator</source>
        <translation>değer ayırıcı (,) eksik</translation>
    </message>
    <message>
        <source>illegal value</source>
        <translation>geçersiz değer</translation>
    </message>
    <message>
        <source>invalid termination by number</source>
        <translation>sayıyla geçersiz bitiş</translation>
    </message>
    <message>
        <source>illegal number</source>
        <translation>geçersiz sayı</translation>
    </message>
    <message>
        <source>invalid escape sequence</source>
        <translation>geçersiz kaçış dizisi</translation>
    </message>
    <message>
        <source>invalid UTF8 string</source>
        <translation>geçersiz UTF-8 dizgesi</translation>
    </message>
    <message>
        <source>unterminated string</source>
        <translation>kapanmamış dizge</translation>
    </message>
    <message>
        <source>object is missing after a comma</source>
        <translation>virgülden sonra nesne eksik</translation>
    </message>
    <message>
        <source>too deeply nested document</source>
        <translation>çok derin iç içe geçmiş belge</translation>
    </message>
    <message>
        <source>too large document</source>
        <translation>çok büyük belge</translation>
    </message>
    <message>
        <source>garbage at the end of the document</source>
        <translation>belgenin sonunda fazladan içerik</translation>
    </message>
    <message>
        <source>%1: no such model folder, .gguf file, built-in model (%2) or model in the Hugging Face cache %3</source>
        <translation>%1: böyle bir model klasörü, .gguf dosyası, yerleşik model (%2) ya da Hugging Face önbelleğinde (%3) model yok</translation>
    </message>
    <message>
        <source>none installed</source>
        <translation>hiçbiri kurulu değil</translation>
    </message>
    <message>
        <source>%1: no such folder</source>
        <translation>%1: böyle bir klasör yok</translation>
    </message>
    <message>
        <source>%1: not a model folder (no config.json)</source>
        <translation>%1: bir model klasörü değil (config.json yok)</translation>
    </message>
    <message>
        <source>%1: not valid JSON (line %2, column %3: %4)</source>
        <translation>%1: geçerli JSON değil (satır %2, sütun %3: %4)</translation>
    </message>
    <message>
        <source>%1: no model.safetensors or model.safetensors.index.json (only pytorch_model.bin, which AttnScope does not read: convert it to safetensors)</source>
        <translation>%1: model.safetensors ya da model.safetensors.index.json yok (yalnızca AttnScope&apos;un okumadığı pytorch_model.bin var: onu safetensors&apos;a dönüştürün)</translation>
    </message>
    <message>
        <source>%1: no model.safetensors or model.safetensors.index.json</source>
        <translation>%1: model.safetensors ya da model.safetensors.index.json yok</translation>
    </message>
    <message>
        <source>%1: unsupported architecture %2; supported model types: %3</source>
        <translation>%1: desteklenmeyen mimari %2; desteklenen model türleri: %3</translation>
    </message>
    <message>
        <source>(none given)</source>
        <translation>(belirtilmemiş)</translation>
    </message>
    <message>
        <source>special tokens discounted</source>
        <translation>özel token&apos;lar dışarıda</translation>
    </message>
</context>
<context>
    <name>attnscope::ArcWidget</name>
    <message>
        <source>No result yet</source>
        <translation>Henüz sonuç yok</translation>
    </message>
    <message>
        <source>L%1 H%2</source>
        <translation>L%1 H%2</translation>
    </message>
    <message>
        <source>from token </source>
        <translation>başlangıç token&apos;ı </translation>
    </message>
    <message>
        <source>The arcs show %1 consecutive tokens of a long input: choose where the window starts</source>
        <translation>Yaylar uzun bir girdinin ardışık %1 token&apos;ını gösterir: pencerenin nereden başlayacağını seçin</translation>
    </message>
    <message>
        <source>tokens %1–%2 of %3</source>
        <translation>%3 token&apos;ın %1–%2 arası</translation>
    </message>
</context>
<context>
    <name>attnscope::BatchExportDialog</name>
    <message>
        <source>Export all heads</source>
        <translation>Tüm kafaları dışa aktar</translation>
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
    <name>attnscope::CensusGridView</name>
    <message>
        <source> (scaled to the largest)</source>
        <translation> (en büyüğe göre ölçekli)</translation>
    </message>
</context>
<context>
    <name>attnscope::CensusLauncher</name>
    <message>
        <source>The corpus census needs a model: choose a built-in model or open a model folder.</source>
        <translation>Derlem taraması bir model gerektirir: yerleşik bir model seçin ya da bir model klasörü açın.</translation>
    </message>
</context>
<context>
    <name>attnscope::ComparisonWidget</name>
    <message>
        <source>L%1 H%2 · %3</source>
        <translation>L%1 H%2 · %3</translation>
    </message>
    <message>
        <source>Heads side by side</source>
        <translation>Kafalar yan yana</translation>
    </message>
    <message>
        <source>Difference of two heads</source>
        <translation>İki kafanın farkı</translation>
    </message>
    <message>
        <source>Same head, two sentences</source>
        <translation>Aynı kafa, iki cümle</translation>
    </message>
    <message>
        <source>Heads:</source>
        <translation>Kafalar:</translation>
    </message>
    <message>
        <source>Second sentence:</source>
        <translation>İkinci cümle:</translation>
    </message>
    <message>
        <source>L%1 H%2</source>
        <translation>L%1 H%2</translation>
    </message>
    <message>
        <source>The difference view needs at most %1 tokens.</source>
        <translation>Fark görünümü en çok %1 token ile çalışır.</translation>
    </message>
    <message>
        <source>Computing the second sentence…</source>
        <translation>İkinci cümle hesaplanıyor…</translation>
    </message>
    <message>
        <source>Both sentences must be at most %1 tokens, on the same model.</source>
        <translation>İki cümle de aynı modelde ve en çok %1 token olmalı.</translation>
    </message>
    <message>
        <source>L%1 H%2 · sentence 1</source>
        <translation>L%1 H%2 · 1. cümle</translation>
    </message>
    <message>
        <source>L%1 H%2 · sentence 2</source>
        <translation>L%1 H%2 · 2. cümle</translation>
    </message>
    <message>
        <source>sentence 1 − sentence 2</source>
        <translation>1. cümle − 2. cümle</translation>
    </message>
    <message>
        <source>%1 aligned tokens shown; tokens without a partner are left out.</source>
        <translation>Eşleşen %1 token gösteriliyor; eşi olmayan token&apos;lar dışarıda bırakıldı.</translation>
    </message>
    <message>
        <source>No comparison shown</source>
        <translation>Gösterilen karşılaştırma yok</translation>
    </message>
    <message>
        <source>Same head, two models</source>
        <translation>Aynı kafa, iki model</translation>
    </message>
    <message>
        <source>Second model:</source>
        <translation>İkinci model:</translation>
    </message>
    <message>
        <source>Pick the second model (e.g. the quantized file of the same model).</source>
        <translation>İkinci modeli seçin (örneğin aynı modelin nicemlenmiş dosyası).</translation>
    </message>
    <message>
        <source>Computing the second model…</source>
        <translation>İkinci model hesaplanıyor…</translation>
    </message>
    <message>
        <source>Both models&apos; inputs must be at most %1 tokens.</source>
        <translation>İki modelin girdisi de en fazla %1 token olmalı.</translation>
    </message>
    <message>
        <source>%1 has no layer %2 head %3 (it has %4 layers × %5 heads).</source>
        <translation>%1 modelinde katman %2 kafa %3 yok (%4 katman × %5 kafası var).</translation>
    </message>
    <message>
        <source>first − second model</source>
        <translation>birinci − ikinci model</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1 · max |Δ| %2</source>
        <translation>%1 · en büyük |Δ| %2</translation>
    </message>
    <message>
        <source>Red: the first head attends more; blue: the second.</source>
        <translation>Kırmızı: birinci kafa daha çok dikkat veriyor; mavi: ikincisi.</translation>
    </message>
    <message>
        <source>L%1 H%2 − L%3 H%4 · max |Δ| %5</source>
        <translation>L%1 H%2 − L%3 H%4 · en büyük |Δ| %5</translation>
    </message>
</context>
<context>
    <name>attnscope::CorpusWindow</name>
    <message>
        <source>Corpus census — %1</source>
        <translation>Derlem taraması — %1</translation>
    </message>
    <message>
        <source>Open text file…</source>
        <translation>Metin dosyası aç…</translation>
    </message>
    <message>
        <source>Sentence pairs</source>
        <translation>Cümle çiftleri</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
    <message>
        <source>Colour by:</source>
        <translation>Renklendir:</translation>
    </message>
    <message>
        <source>Open a text file: one input per line, or JSONL {&quot;text&quot;, &quot;text_b&quot;}.</source>
        <translation>Bir metin dosyası açın: her satırda bir girdi ya da JSONL {&quot;text&quot;, &quot;text_b&quot;}.</translation>
    </message>
    <message>
        <source>Inputs where the chosen head&apos;s metric is strongest and weakest (double-click to open one in the explorer):</source>
        <translation>Seçilen kafanın ölçütünün en güçlü ve en zayıf olduğu girdiler (gezginde açmak için çift tıklayın):</translation>
    </message>
    <message>
        <source>Corpus text file</source>
        <translation>Derlem metin dosyası</translation>
    </message>
    <message>
        <source>Text or JSONL (*.txt *.jsonl *.ndjson);;All files (*)</source>
        <translation>Metin ya da JSONL (*.txt *.jsonl *.ndjson);;Tüm dosyalar (*)</translation>
    </message>
    <message>
        <source>A census is running: cancel it first.</source>
        <translation>Bir tarama çalışıyor: önce onu iptal edin.</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 açılıyor…</translation>
    </message>
    <message>
        <source>%1 inputs, %2 s, about %3 left</source>
        <translation>%1 girdi, %2 sn, yaklaşık %3 kaldı</translation>
    </message>
    <message>
        <source>Done: %1 inputs in %2.</source>
        <translation>Bitti: %2 içinde %1 girdi.</translation>
    </message>
    <message>
        <source>Cancelled after %1 inputs.</source>
        <translation>%1 girdiden sonra iptal edildi.</translation>
    </message>
    <message>
        <source>%1 inputs</source>
        <translation>%1 girdi</translation>
    </message>
    <message>
        <source>Mean %1 per head (%2)</source>
        <translation>Kafa başına ortalama %1 (%2)</translation>
    </message>
    <message>
        <source>Attention by layer (%1)</source>
        <translation>Katmana göre dikkat (%1)</translation>
    </message>
    <message>
        <source>%1  L%2 H%3  %4 = %5  line %6  %7</source>
        <translation>%1  L%2 H%3  %4 = %5  satır %6  %7</translation>
    </message>
    <message>
        <source>strongest</source>
        <translation>en güçlü</translation>
    </message>
    <message>
        <source>weakest</source>
        <translation>en zayıf</translation>
    </message>
    <message>
        <source>%1: line %2 cannot be read again (did the file change?)</source>
        <translation>%1: %2. satır yeniden okunamıyor (dosya değişti mi?)</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Sürdür</translation>
    </message>
    <message>
        <source>Continue the cancelled census from where it stopped</source>
        <translation>İptal edilen taramayı kaldığı yerden sürdür</translation>
    </message>
    <message>
        <source>Resume saved…</source>
        <translation>Kayıtlıyı sürdür…</translation>
    </message>
    <message>
        <source>Continue or show a saved census (this window&apos;s or attnscope census&apos;s census.json)</source>
        <translation>Kayıtlı bir taramayı sürdür ya da göster (bu pencerenin ya da attnscope census&apos;un census.json dosyası)</translation>
    </message>
    <message>
        <source>Saved census</source>
        <translation>Kayıtlı tarama</translation>
    </message>
    <message>
        <source>Census result (*.json);;All files (*)</source>
        <translation>Tarama sonucu (*.json);;Tüm dosyalar (*)</translation>
    </message>
    <message>
        <source>Cancelled after %1 inputs; saved in %2: Resume continues it.</source>
        <translation>%1 girdiden sonra iptal edildi; %2 içine kaydedildi: Sürdür ile devam eder.</translation>
    </message>
    <message>
        <source>Contribution by layer (%1)</source>
        <translation>Katmana göre katkı (%1)</translation>
    </message>
    <message numerus="yes">
        <source>%n input(s) cut to the token limit.</source>
        <translation>
            <numerusform>%n girdi token sınırına kısaltıldı.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) of invalid UTF-8 skipped.</source>
        <translation>
            <numerusform>%n geçersiz UTF-8 satırı atlandı.</numerusform>
        </translation>
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
            <numerusform>%n dosya zaten var, örneğin %1. Değiştirilsinler mi?</numerusform>
        </translation>
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
        <translation>Kafa ızgarasını dışa aktar</translation>
    </message>
    <message>
        <source>Export all heads into folder</source>
        <translation>Tüm kafaları bir klasöre aktar</translation>
    </message>
    <message>
        <source>Exported</source>
        <translation>Dışa aktarıldı</translation>
    </message>
    <message>
        <source>%1: the page is %2×%3 px instead of %4×%5: %6</source>
        <translation>%1: sayfa %4×%5 yerine %2×%3 piksel: %6</translation>
    </message>
    <message>
        <source>Saved to %1</source>
        <translation>Kaydedildi: %1</translation>
    </message>
</context>
<context>
    <name>attnscope::FirstRunHint</name>
    <message>
        <source>First steps: type a sentence above, click a head in the grid to open it, then Lesson ▸ Open in lesson (Ctrl+L) to see its Q, K and V step by step.</source>
        <translation>İlk adımlar: yukarıya bir cümle yazın, açmak için ızgarada bir kafaya tıklayın, sonra Q, K ve V&apos;sini adım adım görmek için Ders ▸ Derste aç (Ctrl+L).</translation>
    </message>
    <message>
        <source>Got it</source>
        <translation>Anladım</translation>
    </message>
    <message>
        <source>Hide this hint for good</source>
        <translation>Bu ipucunu bir daha gösterme</translation>
    </message>
</context>
<context>
    <name>attnscope::FlowView</name>
    <message>
        <source>Show:</source>
        <translation>Göster:</translation>
    </message>
    <message>
        <source>Rollout of the attention weights</source>
        <translation>Dikkat ağırlıklarının rollout&apos;u</translation>
    </message>
    <message>
        <source>Rollout of the contributions ‖αf(x)‖</source>
        <translation>Katkıların rollout&apos;u ‖αf(x)‖</translation>
    </message>
    <message>
        <source>Residual stream: norm per layer and token</source>
        <translation>Artık akış: katman ve token başına norm</translation>
    </message>
    <message>
        <source>Residual stream: largest |activation|</source>
        <translation>Artık akış: en büyük |aktivasyon|</translation>
    </message>
    <message>
        <source>No result</source>
        <translation>Sonuç yok</translation>
    </message>
    <message>
        <source>Computing the rollout…</source>
        <translation>Rollout hesaplanıyor…</translation>
    </message>
</context>
<context>
    <name>attnscope::GenerateTab</name>
    <message numerus="yes">
        <source>Cancelled after %n token(s).</source>
        <translation>
            <numerusform>%n token&apos;dan sonra iptal edildi.</numerusform>
        </translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation>En çok yeni token</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>Örnekle</translation>
    </message>
    <message>
        <source>Off: greedy (the most probable token each step). On: sampling with the temperature, top-k, top-p and seed given.</source>
        <translation>Kapalı: açgözlü (her adımda en olası token). Açık: verilen sıcaklık, top-k, top-p ve tohumla örnekleme.</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Sıcaklık</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>0 = every token</source>
        <translation>0 = her token</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Tohum</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>Üret</translation>
    </message>
    <message>
        <source>Continue Text A with the chosen decoder, one token at a time</source>
        <translation>Metin A&apos;yı seçilen kod çözücüyle her seferinde bir token sürdür</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
    <message>
        <source>◀ Back</source>
        <translation>◀ Geri</translation>
    </message>
    <message>
        <source>Previous step (Left)</source>
        <translation>Önceki adım (Sol)</translation>
    </message>
    <message>
        <source>Forward ▶</source>
        <translation>İleri ▶</translation>
    </message>
    <message>
        <source>Next step (Right)</source>
        <translation>Sonraki adım (Sağ)</translation>
    </message>
    <message>
        <source>Layer / head</source>
        <translation>Katman / kafa</translation>
    </message>
    <message>
        <source>Generation needs a decoder model (a built-in decoder or an opened folder); the worked example and the demos have no model to generate with.</source>
        <translation>Üretim için bir kod çözücü model gerekir (yerleşik bir kod çözücü ya da açılmış bir klasör); çözümlü örnekte ve demolarda üretecek bir model yok.</translation>
    </message>
    <message>
        <source>%1 is an encoder: it sees the whole text at once and does not generate. Choose a decoder (e.g. tiny-llama-en-tr) to watch generation.</source>
        <translation>%1 bir kodlayıcı: metnin tamamını bir kerede görür ve üretmez. Üretimi izlemek için bir kod çözücü seçin (örn. tiny-llama-en-tr).</translation>
    </message>
    <message>
        <source>Text A gives no tokens: type a prompt.</source>
        <translation>Metin A hiç token vermiyor: bir istem yazın.</translation>
    </message>
    <message>
        <source>The prompt has %1 tokens; %2 takes %3 positions, so there is no room to generate.</source>
        <translation>İstemde %1 token var; %2 %3 konum alır, üretmeye yer kalmıyor.</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>Üretiliyor…</translation>
    </message>
    <message>
        <source>Stopped at the end-of-text token.</source>
        <translation>Metin sonu token&apos;ında durdu.</translation>
    </message>
    <message>
        <source>Stopped: the sequence fills the model&apos;s positions.</source>
        <translation>Durdu: dizi modelin konumlarını dolduruyor.</translation>
    </message>
    <message numerus="yes">
        <source>Generated %n token(s).</source>
        <translation>
            <numerusform>%n token üretildi.</numerusform>
        </translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Adım %1 / %2</translation>
    </message>
    <message>
        <source>Press Generate: each new token&apos;s attention row is added here.</source>
        <translation>Üret&apos;e basın: her yeni token&apos;ın dikkat satırı buraya eklenir.</translation>
    </message>
    <message>
        <source>Layer %1, head %2 · step %3 of %4</source>
        <translation>Katman %1, kafa %2 · adım %3 / %4</translation>
    </message>
    <message>
        <source>Chose “%1” (p = %2)</source>
        <translation>Seçilen: “%1” (p = %2)</translation>
    </message>
</context>
<context>
    <name>attnscope::GetModelDialog</name>
    <message>
        <source>Press Download to fetch %1.</source>
        <translation>%1 modelini indirmek için İndir&apos;e basın.</translation>
    </message>
    <message>
        <source>Get a model</source>
        <translation>Model edin</translation>
    </message>
    <message>
        <source>Download a model from the Hugging Face Hub into its cache (%1), shared with Python tools. Only what a run needs is fetched: config.json, the tokenizer and the safetensors weights, or the one GGUF file you choose.</source>
        <translation>Hugging Face Hub&apos;dan bir modeli Python araçlarıyla paylaşılan önbelleğine (%1) indirin. Yalnızca bir çalıştırmanın gerektirdikleri indirilir: config.json, token&apos;laştırıcı ve safetensors ağırlıkları ya da seçtiğiniz tek GGUF dosyası.</translation>
    </message>
    <message>
        <source>Repository:</source>
        <translation>Depo:</translation>
    </message>
    <message>
        <source>org/name, e.g. HuggingFaceTB/SmolLM2-360M</source>
        <translation>kurum/ad, ör. HuggingFaceTB/SmolLM2-360M</translation>
    </message>
    <message>
        <source>Revision:</source>
        <translation>Sürüm:</translation>
    </message>
    <message>
        <source>main (a branch, tag or commit)</source>
        <translation>main (bir dal, etiket ya da commit)</translation>
    </message>
    <message>
        <source>The repository holds several GGUF files; choose one:</source>
        <translation>Depoda birden çok GGUF dosyası var; birini seçin:</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Dosya</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Boyut</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>İndir</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>İndirmeyi iptal et</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Kapat</translation>
    </message>
</context>
<context>
    <name>attnscope::GridPane</name>
    <message>
        <source>Measure:</source>
        <translation>Ölçü:</translation>
    </message>
    <message>
        <source>What every view shows: the attention weight α, or the contribution ‖αf(x)‖ of each key to the query&apos;s output (Kobayashi et al. 2020). Contributions are shown per row as shares of the row&apos;s total; the read-out gives the absolute size.</source>
        <translation>Her görünümün gösterdiği: dikkat ağırlığı α ya da her anahtarın sorgunun çıktısına katkısı ‖αf(x)‖ (Kobayashi vd. 2020). Katkılar her satırda satır toplamındaki payları olarak gösterilir; değer göstergesi mutlak büyüklüğü verir.</translation>
    </message>
    <message>
        <source>Sort:</source>
        <translation>Sırala:</translation>
    </message>
    <message>
        <source>Colour:</source>
        <translation>Renk:</translation>
    </message>
    <message>
        <source>Head order</source>
        <translation>Kafa sırası</translation>
    </message>
    <message>
        <source>No colour</source>
        <translation>Renk yok</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>Etiket</translation>
    </message>
    <message>
        <source>Find sink / no-op heads</source>
        <translation>Kuyu / işlemsiz kafaları bul</translation>
    </message>
    <message>
        <source>Ring every head labelled sink or no-op and open the first</source>
        <translation>Kuyu ya da işlemsiz etiketli her kafayı çerçevele ve ilkini aç</translation>
    </message>
    <message>
        <source>Scan all heads</source>
        <translation>Tüm kafaları tara</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
    <message>
        <source>Predictions — ablating %1…</source>
        <translation>Tahminler — %1 kapatılıyor…</translation>
    </message>
    <message>
        <source>%p% · %1</source>
        <translation>%%p · %1</translation>
    </message>
    <message>
        <source>Predictions</source>
        <translation>Tahminler</translation>
    </message>
    <message>
        <source>Scan cancelled</source>
        <translation>Tarama iptal edildi</translation>
    </message>
    <message>
        <source>Ablate this head (zero)</source>
        <translation>Bu kafayı kapat (sıfır)</translation>
    </message>
    <message>
        <source>L%1 H%2 (zero)</source>
        <translation>L%1 H%2 (sıfır)</translation>
    </message>
    <message>
        <source>Ablate this head (mean)</source>
        <translation>Bu kafayı kapat (ortalama)</translation>
    </message>
    <message>
        <source>L%1 H%2 (mean)</source>
        <translation>L%1 H%2 (ortalama)</translation>
    </message>
    <message>
        <source>Ablate layer %1 (zero)</source>
        <translation>Bu katmanı kapat (katman %1, sıfır)</translation>
    </message>
    <message>
        <source>layer %1 (zero)</source>
        <translation>katman %1 (sıfır)</translation>
    </message>
    <message>
        <source>Ablate layer %1 (mean)</source>
        <translation>Bu katmanı kapat (katman %1, ortalama)</translation>
    </message>
    <message>
        <source>layer %1 (mean)</source>
        <translation>katman %1 (ortalama)</translation>
    </message>
    <message>
        <source>Scan all heads (zero)</source>
        <translation>Tüm kafaları tara (sıfır)</translation>
    </message>
    <message>
        <source>Scan all heads (mean)</source>
        <translation>Tüm kafaları tara (ortalama)</translation>
    </message>
    <message>
        <source>Clear ablation results</source>
        <translation>Ablasyon sonuçlarını temizle</translation>
    </message>
    <message>
        <source>Predictions — %1 ablated</source>
        <translation>Tahminler — %1 kapalı</translation>
    </message>
    <message>
        <source>ablation KL, nats (zero)</source>
        <translation>ablasyon KL, nat (sıfır)</translation>
    </message>
    <message>
        <source>ablation KL, nats (mean)</source>
        <translation>ablasyon KL, nat (ortalama)</translation>
    </message>
    <message numerus="yes">
        <source>Scan done: %n head(s)</source>
        <translation>
            <numerusform>Tarama bitti: %n kafa</numerusform>
        </translation>
    </message>
    <message>
        <source>Switch off every head once and colour the grid by how much the model&apos;s prediction changes (KL divergence)</source>
        <translation>Her kafayı bir kez kapat ve ızgarayı modelin tahmininin ne kadar değiştiğine göre renklendir (KL ıraksaması)</translation>
    </message>
    <message>
        <source>%1 Showing the attention weight α.</source>
        <translation>%1 Dikkat ağırlığı α gösteriliyor.</translation>
    </message>
    <message numerus="yes">
        <source>%n sink or no-op head(s)</source>
        <translation>
            <numerusform>%n kuyu ya da işlemsiz kafa</numerusform>
        </translation>
    </message>
    <message>
        <source>Colour: how much the model&apos;s prediction changes when that head is switched off (KL divergence).</source>
        <translation>Renk: o kafa kapatıldığında modelin tahmininin ne kadar değiştiği (KL ıraksaması).</translation>
    </message>
</context>
<context>
    <name>attnscope::GuidedModelList</name>
    <message>
        <source>Models that show it</source>
        <translation>Bunu gösteren modeller</translation>
    </message>
    <message>
        <source>The built-in models are toys: too small to show attention sinks or real head roles. Each model below shows a phenomenon from the literature; download one and open it from the model list.</source>
        <translation>Yerleşik modeller oyuncaktır: dikkat kuyularını ya da gerçek kafa rollerini gösteremeyecek kadar küçüktür. Aşağıdaki her model literatürden bir olguyu gösterir; birini indirip model listesinden açın.</translation>
    </message>
    <message>
        <source>Until the download window arrives, run this in a terminal:</source>
        <translation>İndirme penceresi gelene dek bunu bir terminalde çalıştırın:</translation>
    </message>
    <message>
        <source>download %1</source>
        <translation>indirme %1</translation>
    </message>
    <message>
        <source> (estimated from the config)</source>
        <translation> (yapılandırmadan tahmin)</translation>
    </message>
    <message>
        <source>needs ≈ %1 at %2 tokens</source>
        <translation>%2 token&apos;da ≈ %1 gerekir</translation>
    </message>
    <message>
        <source>licence: %1</source>
        <translation>lisans: %1</translation>
    </message>
    <message>
        <source>gated: accept the licence on the Hub, then set HF_TOKEN</source>
        <translation>izne bağlı: lisansı Hub&apos;da kabul edin, sonra HF_TOKEN&apos;ı ayarlayın</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>İndir</translation>
    </message>
</context>
<context>
    <name>attnscope::HeadGridWidget</name>
    <message>
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>L%1</translation>
    </message>
    <message>
        <source>Layer %1, head %2: %3</source>
        <translation>Katman %1, kafa %2: %3</translation>
    </message>
    <message>
        <source>sink mass (first token) %1</source>
        <translation>kuyu kütlesi (ilk token) %1</translation>
    </message>
    <message>
        <source>[SEP] mass %1</source>
        <translation>[SEP] kütlesi %1</translation>
    </message>
    <message>
        <source>entropy %1 (normalised)</source>
        <translation>entropi %1 (normalleştirilmiş)</translation>
    </message>
    <message>
        <source>No result</source>
        <translation>Sonuç yok</translation>
    </message>
</context>
<context>
    <name>attnscope::HeadMapView</name>
    <message>
        <source>Heads by similarity (first two principal components of their census means)</source>
        <translation>Benzerliğe göre kafalar (tarama ortalamalarının ilk iki temel bileşeni)</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>katman</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>katman %1, kafa %2</translation>
    </message>
</context>
<context>
    <name>attnscope::HeadStatsModel</name>
    <message>
        <source>Layer</source>
        <translation>Katman</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>Kafa</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>Etiket</translation>
    </message>
</context>
<context>
    <name>attnscope::HeatmapPainter</name>
    <message>
        <source>Side bar: each row&apos;s attention to %1, in the colour bar&apos;s scale</source>
        <translation>Yan şerit: her satırın %1 token&apos;ına verdiği dikkat, renk çubuğunun ölçeğinde</translation>
    </message>
    <message>
        <source>Side bars: each row&apos;s attention to %1 and to [SEP], in the colour bar&apos;s scale</source>
        <translation>Yan şeritler: her satırın %1 ve [SEP] token&apos;larına verdiği dikkat, renk çubuğunun ölçeğinde</translation>
    </message>
</context>
<context>
    <name>attnscope::HeatmapTab</name>
    <message>
        <source>viridis</source>
        <translation>viridis</translation>
    </message>
    <message>
        <source>magma</source>
        <translation>magma</translation>
    </message>
    <message>
        <source>cividis</source>
        <translation>cividis</translation>
    </message>
    <message>
        <source>greys</source>
        <translation>griler</translation>
    </message>
    <message>
        <source>absolute 0–1</source>
        <translation>mutlak 0–1</translation>
    </message>
    <message>
        <source>per-row max</source>
        <translation>satır en büyüğü</translation>
    </message>
    <message>
        <source>log</source>
        <translation>log</translation>
    </message>
    <message>
        <source>Discount special tokens</source>
        <translation>Özel token&apos;ları dışarıda bırak</translation>
    </message>
    <message>
        <source>Words</source>
        <translation>Sözcükler</translation>
    </message>
    <message>
        <source>Renormalise each row without [CLS], [SEP] and BOS, as exBERT does</source>
        <translation>Her satırı exBERT&apos;in yaptığı gibi [CLS], [SEP] ve BOS olmadan yeniden normalleştir</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Sığdır</translation>
    </message>
    <message>
        <source>Colours:</source>
        <translation>Renkler:</translation>
    </message>
    <message>
        <source>Scale:</source>
        <translation>Ölçek:</translation>
    </message>
    <message>
        <source>Merge subword pieces into words (Clark et al. 2019): attention to a word is the sum over its pieces, from a word the mean</source>
        <translation>Alt sözcük parçalarını sözcüklerde birleştir (Clark vd. 2019): bir sözcüğe dikkat, parçalarına gidenlerin toplamı; bir sözcükten dikkat, parçalarınınkilerin ortalamasıdır</translation>
    </message>
    <message>
        <source>The Words view needs at most %1 tokens; this input has %2.</source>
        <translation>Sözcükler görünümü en çok %1 token&apos;la çalışır; bu girdide %2 token var.</translation>
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
    <message>
        <source> · special tokens discounted (exact when zoomed in)</source>
        <translation> · özel token&apos;lar dışarıda (yakınlaştırınca tam)</translation>
    </message>
    <message>
        <source> · special tokens discounted</source>
        <translation> · özel token&apos;lar dışarıda</translation>
    </message>
    <message>
        <source>%1 → %2: special token, discounted</source>
        <translation>%1 → %2: özel token, dışarıda</translation>
    </message>
    <message>
        <source>%1 → %2: ‖αf(x)‖ %3 (%4 of the row)</source>
        <translation>%1 → %2: ‖αf(x)‖ %3 (satırın %4 kadarı)</translation>
    </message>
</context>
<context>
    <name>attnscope::HeatmapZoomWindow</name>
    <message>
        <source>Zoom window: move the mouse over the overview to read its tokens</source>
        <translation>Yakınlaştırma penceresi: token&apos;ları okumak için fareyi genel görünümün üzerinde gezdirin</translation>
    </message>
</context>
<context>
    <name>attnscope::HubDownloadFlow</name>
    <message>
        <source>Type a Hugging Face repository id and press Download.</source>
        <translation>Bir Hugging Face depo kimliği yazın ve İndir&apos;e basın.</translation>
    </message>
    <message>
        <source>Type a repository id, such as gpt2 or org/name.</source>
        <translation>gpt2 ya da kurum/ad gibi bir depo kimliği yazın.</translation>
    </message>
    <message>
        <source>Repository id: %1</source>
        <translation>Depo kimliği: %1</translation>
    </message>
    <message>
        <source>Revision: %1</source>
        <translation>Sürüm: %1</translation>
    </message>
    <message>
        <source>Cancelled. Nothing partial is in the cache&apos;s snapshots; a new try resumes the unfinished file.</source>
        <translation>İptal edildi. Önbelleğin anlık görüntülerine yarım dosya eklenmedi; yeni bir deneme yarım kalan dosyadan sürer.</translation>
    </message>
    <message>
        <source>Asking %1 for the files of %2 (%3)…</source>
        <translation>%1 sunucusundan %2 (%3) dosyaları isteniyor…</translation>
    </message>
    <message numerus="yes">
        <source>%1 holds %n GGUF file(s): choose one.</source>
        <translation>
            <numerusform>%1 deposunda %n GGUF dosyası var: birini seçin.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/sn</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>%1 kaldı</translation>
    </message>
    <message>
        <source>Done: %1 is open in the explorer.</source>
        <translation>Bitti: %1 gezginde açık.</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 sn</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 dk %2 sn</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 sa %2 dk</translation>
    </message>
</context>
<context>
    <name>attnscope::InputBar</name>
    <message>
        <source>Open folder…</source>
        <translation>Klasör aç…</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Model:</translation>
    </message>
    <message>
        <source>Text A:</source>
        <translation>Metin A:</translation>
    </message>
    <message>
        <source>Text B:</source>
        <translation>Metin B:</translation>
    </message>
    <message>
        <source>Type a sentence…</source>
        <translation>Bir cümle yazın…</translation>
    </message>
    <message>
        <source>The worked example has its own Q, K and V for these three words, so its text cannot change. Pick a model above to type your own text, or open it in Lesson ▸ Worked example.</source>
        <translation>Çözümlü örneğin bu üç sözcük için kendi Q, K ve V değerleri var, bu yüzden metni değişmez. Kendi metninizi yazmak için yukarıdan bir model seçin ya da örneği Ders ▸ Çözümlü örnek ile açın.</translation>
    </message>
    <message>
        <source>Optional second sentence (encoders: [SEP] between A and B)</source>
        <translation>İsteğe bağlı ikinci cümle (kodlayıcılar: A ile B arasında [SEP])</translation>
    </message>
    <message>
        <source>Open GGUF file…</source>
        <translation>GGUF dosyası aç…</translation>
    </message>
    <message>
        <source> · %1 available</source>
        <translation> · %1 boş</translation>
    </message>
</context>
<context>
    <name>attnscope::KvCachePanel</name>
    <message>
        <source>FP16 / BF16 (2 bytes)</source>
        <translation>FP16 / BF16 (2 bayt)</translation>
    </message>
    <message>
        <source>FP8 (1 byte)</source>
        <translation>FP8 (1 bayt)</translation>
    </message>
    <message>
        <source>FP32 (4 bytes)</source>
        <translation>FP32 (4 bayt)</translation>
    </message>
    <message>
        <source>Context (tokens)</source>
        <translation>Bağlam (token)</translation>
    </message>
    <message>
        <source>Cache precision</source>
        <translation>Önbellek duyarlığı</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Dikkat</translation>
    </message>
    <message>
        <source>Cached per layer</source>
        <translation>Katman başına önbellekte</translation>
    </message>
    <message>
        <source>Per token</source>
        <translation>Token başına</translation>
    </message>
    <message>
        <source>Whole context</source>
        <translation>Tüm bağlam</translation>
    </message>
    <message>
        <source>Against MHA</source>
        <translation>MHA&apos;ya göre</translation>
    </message>
    <message>
        <source>Each generated token leaves its keys and values in every layer&apos;s cache. MHA keeps them for every head: 2 × heads × head size per layer. GQA lets a group of query heads share one key/value head (Llama-3-8B: 32 query heads, 8 key/value heads), so the cache shrinks by heads ÷ key/value heads; MQA is the extreme, one key/value head for all. MLA (DeepSeek-V2/V3) caches one compressed latent per token (512 numbers) plus a small key that carries the rotary position (64), shared by all 128 heads; the keys and values are rebuilt from the latent when attention is computed.</source>
        <translation>Üretilen her token, anahtarlarını ve değerlerini her katmanın önbelleğinde bırakır. MHA bunları her kafa için tutar: katman başına 2 × kafa × kafa boyu. GQA bir grup sorgu kafasının tek bir anahtar/değer kafasını paylaşmasına izin verir (Llama-3-8B: 32 sorgu kafası, 8 anahtar/değer kafası), böylece önbellek kafa ÷ anahtar/değer kafası kadar küçülür; MQA uç durumdur, hepsi için tek bir anahtar/değer kafası. MLA (DeepSeek-V2/V3) token başına sıkıştırılmış tek bir gizil vektör (512 sayı) ve döner konumu taşıyan küçük bir anahtar (64) önbelleğe alır, 128 kafanın hepsi bunu paylaşır; anahtarlar ve değerler dikkat hesaplanırken gizil vektörden yeniden kurulur.</translation>
    </message>
    <message>
        <source>latent %1 + RoPE key %2</source>
        <translation>gizil %1 + RoPE anahtarı %2</translation>
    </message>
    <message>
        <source>2 × %1 KV heads × %2</source>
        <translation>2 × %1 KV kafası × %2</translation>
    </message>
    <message>
        <source>%1× smaller</source>
        <translation>%1× daha küçük</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Katmanlar</translation>
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
    <name>attnscope::LayerChartWidget</name>
    <message>
        <source>Mean attention per layer</source>
        <translation>Katman başına ortalama dikkat</translation>
    </message>
    <message>
        <source>sink (first token)</source>
        <translation>kuyu (ilk token)</translation>
    </message>
    <message>
        <source>[SEP]</source>
        <translation>[SEP]</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>L%1</translation>
    </message>
</context>
<context>
    <name>attnscope::LayerCurves</name>
    <message>
        <source>mean share of contribution</source>
        <translation>ortalama katkı payı</translation>
    </message>
    <message>
        <source>mean share of attention</source>
        <translation>ortalama dikkat payı</translation>
    </message>
    <message>
        <source>punctuation</source>
        <translation>noktalama</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>katman</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonLauncher</name>
    <message>
        <source>Less&amp;on</source>
        <translation>D&amp;ers</translation>
    </message>
    <message>
        <source>Worked example (kedi mindere oturdu)</source>
        <translation>Çözümlü örnek (kedi mindere oturdu)</translation>
    </message>
    <message>
        <source>The classroom example: three tokens, Q, K and V of four numbers each, every step by hand</source>
        <translation>Sınıf örneği: üç token, her biri dört sayılık Q, K ve V; her adım elle izlenebilir</translation>
    </message>
    <message>
        <source>Open in lesson</source>
        <translation>Derste aç</translation>
    </message>
    <message>
        <source>Lesson — worked example: kedi mindere oturdu</source>
        <translation>Ders — çözümlü örnek: kedi mindere oturdu</translation>
    </message>
    <message>
        <source>Layer %1 has no Q, K and V in this run</source>
        <translation>Bu çalıştırmada katman %1 için Q, K ve V yok</translation>
    </message>
    <message>
        <source>Lesson — layer %1, head %2</source>
        <translation>Ders — katman %1, kafa %2</translation>
    </message>
    <message>
        <source>Open in lesson needs a model with Q, K and V (not a synthetic demo) and an input of at most %1 tokens</source>
        <translation>Derste açmak için Q, K ve V&apos;si olan bir model (yapay örnek değil) ve en çok %1 token&apos;lık bir girdi gerekir</translation>
    </message>
    <message>
        <source>This model is too small to have attention sinks: no head puts %1 or more of its attention on the first token (at most %2). For sinks and the StreamingLLM experiment, get %3 in the Get a model tab.</source>
        <translation>Bu model dikkat kuyusu olamayacak kadar küçük: hiçbir kafa dikkatinin %1 ya da daha fazlasını ilk token&apos;a vermiyor (en çok %2). Kuyular ve StreamingLLM deneyi için Model edin sekmesinden %3 modelini edinin.</translation>
    </message>
    <message>
        <source>Show this head&apos;s real Q, K and V for %1 consecutive tokens step by step in the lesson (on a longer input, the first ones; a bar above the lesson moves the window)</source>
        <translation>Bu kafanın gerçek Q, K ve V değerlerini ardışık %1 token için derste adım adım göster (daha uzun bir girdide ilkleri; dersin üstündeki çubuk pencereyi kaydırır)</translation>
    </message>
    <message>
        <source>The lesson keeps tokens %1–%2 of %3</source>
        <translation>Ders %3 token&apos;ın %1–%2 arasını tutuyor</translation>
    </message>
    <message>
        <source>%1 (under the causal mask exactly the head&apos;s attention); choose another window above the lesson</source>
        <translation>%1 (nedensel maske altında tam olarak kafanın dikkati); dersin üstünden başka bir pencere seçin</translation>
    </message>
    <message>
        <source>%1; its softmax runs over those keys only; choose another window above the lesson</source>
        <translation>%1; softmax yalnızca bu anahtarlar üzerinden hesaplanır; dersin üstünden başka bir pencere seçin</translation>
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
        <translation>(kafanın ölçeği)</translation>
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
        <translation>S&apos; (maske yok: her token her token&apos;ı görür)</translation>
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
        <translation>Token</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonTokenWindowBar</name>
    <message>
        <source>The lesson keeps tokens %1–%2 of %3;</source>
        <translation>Ders %3 token&apos;ın %1–%2 arasını tutuyor;</translation>
    </message>
    <message>
        <source>from token </source>
        <translation>başlangıç token&apos;ı </translation>
    </message>
    <message>
        <source>Choose which %1 consecutive tokens the lesson shows</source>
        <translation>Dersin hangi ardışık %1 token&apos;ı göstereceğini seçin</translation>
    </message>
</context>
<context>
    <name>attnscope::LessonView</name>
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
        <translation>Token sayısı:</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token&apos;lar</translation>
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
        <translation>Çok kafalı</translation>
    </message>
    <message>
        <source>Divide the scores by √d_k</source>
        <translation>Skorları √d_k ile böl</translation>
    </message>
    <message>
        <source>Random queries and keys with unit-variance components: their dot products grow with d_k. Without the scaling the softmax collapses onto one token.</source>
        <translation>Bileşenleri birim varyanslı rastgele sorgular ve anahtarlar: iç çarpımları d_k ile büyür. Ölçekleme olmadan softmax tek bir token&apos;a çöker.</translation>
    </message>
    <message>
        <source>d_k:</source>
        <translation>d_k:</translation>
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
        <translation>Token&apos;ları karıştır</translation>
    </message>
    <message>
        <source>Heads h:</source>
        <translation>Kafa sayısı h:</translation>
    </message>
    <message>
        <source>Cannot open this head in the lesson: %1</source>
        <translation>Bu kafa derste açılamıyor: %1</translation>
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
        <translation>softmax tek bir token&apos;a çöktü</translation>
    </message>
    <message>
        <source>the softmax is close to picking one token</source>
        <translation>softmax tek bir token&apos;ı seçmeye yakın</translation>
    </message>
    <message>
        <source>the attention stays spread over several tokens</source>
        <translation>dikkat birkaç token&apos;a yayılmış kalıyor</translation>
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
        <translation>satırlar görünür token&apos;lar üzerinde yeniden normalleştirildi</translation>
    </message>
    <message>
        <source>Output, original order</source>
        <translation>Çıktı, özgün sıra</translation>
    </message>
    <message>
        <source>Output, tokens shuffled</source>
        <translation>Çıktı, token&apos;lar karıştırıldı</translation>
    </message>
    <message>
        <source>Every token&apos;s output row is the same, only in another order: without positions, attention does not see word order.</source>
        <translation>Her token&apos;ın çıktı satırı aynı, yalnızca sırası farklı: konum bilgisi olmadan dikkat sözcük sırasını görmez.</translation>
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
        <source>Head %1: weights</source>
        <translation>Kafa %1: ağırlıklar</translation>
    </message>
    <message>
        <source>Concatenated head outputs</source>
        <translation>Art arda eklenmiş kafa çıktıları</translation>
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
    <message>
        <source>PNG encoding failed</source>
        <translation>PNG kodlanamadı</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>Kaydet…</translation>
    </message>
    <message>
        <source>A token sees only itself and the tokens before it. The mask puts −∞ above the diagonal; e^−∞ = 0, so each row&apos;s weights are shared out again among the tokens it may see and still sum to 1.</source>
        <translation>Bir token yalnızca kendisini ve kendinden önceki token&apos;ları görür. Maske köşegenin üstüne −∞ koyar; e^−∞ = 0 olduğundan her satırın ağırlıkları görebildiği token&apos;lar arasında yeniden paylaştırılır ve toplamı yine 1 olur.</translation>
    </message>
    <message>
        <source>with a single key its weight is always 1</source>
        <translation>tek anahtar varken ağırlığı her zaman 1</translation>
    </message>
    <message numerus="yes">
        <source>%1 random queries × %n key(s) each (as many as the lesson&apos;s tokens) = %2 scores. Spread of the scores: %3. Mean largest weight: %4 — %5.</source>
        <translation>
            <numerusform>%1 rastgele sorgu × her biri için %n anahtar (dersteki token sayısı kadar) = %2 skor. Skorların yayılımı: %3. Ortalama en büyük ağırlık: %4 — %5.</numerusform>
        </translation>
    </message>
    <message>
        <source>This lesson cannot be split into %1 heads: %2</source>
        <translation>Bu ders %1 kafaya bölünemiyor: %2</translation>
    </message>
    <message>
        <source>The lesson&apos;s Q and K have d_k = %1 columns, so each of the %2 heads takes %3 of them (and %4 of V&apos;s): the columns a fused projection gives that head. Each head is the same attention, scaled by 1/√%3; their outputs are concatenated. A real layer then mixes them with W_O.</source>
        <translation>Dersin Q ve K matrislerinde d_k = %1 sütun var; %2 kafanın her biri bunların %3 tanesini (ve V&apos;nin %4 sütununu) alır: birleşik bir izdüşümün o kafaya verdiği sütunlar. Her kafa aynı dikkattir, 1/√%3 ile ölçeklenir; çıktıları art arda eklenir. Gerçek bir katman bunları sonra W_O ile karıştırır.</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV önbelleği</translation>
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
<context>
    <name>attnscope::MainMenus</name>
    <message>
        <source>E&amp;xport</source>
        <translation>&amp;Dışa aktar</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Dil</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Dosya</translation>
    </message>
    <message>
        <source>Open model folder</source>
        <translation>Model klasörü aç</translation>
    </message>
    <message>
        <source>Add a folder of models to the list</source>
        <translation>Listeye bir model klasörü ekle</translation>
    </message>
    <message>
        <source>Corpus census…</source>
        <translation>Derlem taraması…</translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation>Model klasörü aç…</translation>
    </message>
    <message>
        <source>Open GGUF file…</source>
        <translation>GGUF dosyası aç…</translation>
    </message>
    <message>
        <source>Add folder to the model list (GGUF files, model folders)…</source>
        <translation>Model listesine klasör ekle (GGUF dosyaları, model klasörleri)…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Çık</translation>
    </message>
    <message>
        <source>E&amp;xamples</source>
        <translation>Ö&amp;rnekler</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Görünüm</translation>
    </message>
    <message>
        <source>Fit heatmap</source>
        <translation>Isı haritasını sığdır</translation>
    </message>
    <message>
        <source>Discount special tokens</source>
        <translation>Özel token&apos;ları dışarıda bırak</translation>
    </message>
    <message>
        <source>Auto (a hardware GPU if there is one, else the CPU)</source>
        <translation>Otomatik (varsa donanım GPU&apos;su, yoksa işlemci)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>İşlemci (CPU)</translation>
    </message>
    <message>
        <source>Compute backend</source>
        <translation>Hesaplama arka ucu</translation>
    </message>
    <message>
        <source>Get a model…</source>
        <translation>Model edin…</translation>
    </message>
    <message>
        <source>Long paragraph (attention sinks; opens on a decoder)</source>
        <translation>Uzun paragraf (dikkat kuyuları; bir kod çözücüde açılır)</translation>
    </message>
    <message>
        <source>Attention sinks are a decoder&apos;s, and the paragraph is longer than the built-in encoder takes: it runs on a decoder</source>
        <translation>Dikkat kuyuları kod çözücülerde görülür ve paragraf yerleşik kodlayıcının alabileceğinden uzun: bir kod çözücüde çalışır</translation>
    </message>
</context>
<context>
    <name>attnscope::MainWindow</name>
    <message>
        <source>AttnScope</source>
        <translation>AttnScope</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>Isı haritası</translation>
    </message>
    <message>
        <source>Compare heads</source>
        <translation>Kafaları karşılaştır</translation>
    </message>
    <message>
        <source>Arcs</source>
        <translation>Yaylar</translation>
    </message>
    <message>
        <source>Statistics</source>
        <translation>İstatistikler</translation>
    </message>
    <message>
        <source>Open model folder</source>
        <translation>Model klasörü aç</translation>
    </message>
    <message>
        <source>AttnScope — %1</source>
        <translation>AttnScope — %1</translation>
    </message>
    <message>
        <source>Open GGUF file</source>
        <translation>GGUF dosyası aç</translation>
    </message>
    <message>
        <source>llama.cpp GGUF files (*.gguf);;All files (*)</source>
        <translation>llama.cpp GGUF dosyaları (*.gguf);;Tüm dosyalar (*)</translation>
    </message>
    <message>
        <source>%1: not a model (a folder with config.json, or a llama.cpp .gguf file)</source>
        <translation>%1: model değil (config.json içeren bir klasör ya da bir llama.cpp .gguf dosyası olmalı)</translation>
    </message>
    <message>
        <source>Computing on %1…</source>
        <translation>%1 üzerinde hesaplanıyor…</translation>
    </message>
    <message>
        <source>AttnScope — %1 — computing…</source>
        <translation>AttnScope — %1 — hesaplanıyor…</translation>
    </message>
    <message>
        <source>AttnScope — %1 — failed</source>
        <translation>AttnScope — %1 — başarısız</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>iptal edildi</translation>
    </message>
    <message>
        <source>Loading %1: opening…</source>
        <translation>%1 yükleniyor: açılıyor…</translation>
    </message>
    <message>
        <source>Loading %1: reading weights, %2 of %3</source>
        <translation>%1 yükleniyor: ağırlıklar okunuyor, %2 / %3</translation>
    </message>
    <message>
        <source>loading %1 cancelled</source>
        <translation>%1 yüklemesi iptal edildi</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) added from %1</source>
        <translation>
            <numerusform>%1 klasöründen %n model eklendi</numerusform>
        </translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>Üretim</translation>
    </message>
    <message>
        <source>Streaming</source>
        <translation>KV önbelleği</translation>
    </message>
    <message>
        <source>Nothing is shown yet.</source>
        <translation>Henüz gösterilen bir şey yok.</translation>
    </message>
    <message>
        <source>Ablation needs a real model; the demos have none.</source>
        <translation>Ablasyon gerçek bir model ister; örneklerde model yok.</translation>
    </message>
    <message>
        <source>The model has nothing to predict for this input.</source>
        <translation>Model bu girdi için tahmin edecek bir şey bulmuyor.</translation>
    </message>
    <message>
        <source>Type [MASK] in the text: ablation measures the change of the model&apos;s prediction.</source>
        <translation>Metne [MASK] yazın: ablasyon, modelin tahminindeki değişimi ölçer.</translation>
    </message>
    <message>
        <source>Flow</source>
        <translation>Bilgi akışı</translation>
    </message>
    <message>
        <source>Attention rollout and the residual stream&apos;s size per layer and token</source>
        <translation>Dikkat rollout&apos;u ve artık akışın katman ve token başına büyüklüğü</translation>
    </message>
    <message>
        <source>Slow CPU kernels (%1): modules missing, see the tooltip</source>
        <translation>Yavaş CPU çekirdekleri (%1): modüller eksik, ipucuna bakın</translation>
    </message>
    <message>
        <source>Get a model</source>
        <translation>Model edin</translation>
    </message>
    <message>
        <source>%1 — showing %2 instead; choose a model above.</source>
        <translation>%1 — yerine %2 gösteriliyor; yukarıdan bir model seçin.</translation>
    </message>
</context>
<context>
    <name>attnscope::MainWindowFeatures</name>
    <message>
        <source>Heatmap as shown…</source>
        <translation>Isı haritası (göründüğü gibi)…</translation>
    </message>
    <message>
        <source>Head grid…</source>
        <translation>Kafa ızgarası…</translation>
    </message>
    <message>
        <source>All heads into a folder</source>
        <translation>Tüm kafalar bir klasöre</translation>
    </message>
    <message>
        <source>Step through heads</source>
        <translation>Kafalar arasında gez</translation>
    </message>
    <message>
        <source>Comparison as shown…</source>
        <translation>Karşılaştırma (göründüğü gibi)…</translation>
    </message>
    <message>
        <source>Arcs as shown…</source>
        <translation>Yaylar (göründüğü gibi)…</translation>
    </message>
    <message>
        <source>Statistics chart…</source>
        <translation>İstatistik grafiği…</translation>
    </message>
    <message>
        <source>Export comparison</source>
        <translation>Karşılaştırmayı dışa aktar</translation>
    </message>
    <message>
        <source>Head comparison</source>
        <translation>Kafa karşılaştırması</translation>
    </message>
    <message>
        <source>Export arcs</source>
        <translation>Yayları dışa aktar</translation>
    </message>
    <message>
        <source>Attention arcs</source>
        <translation>Dikkat yayları</translation>
    </message>
    <message>
        <source>Export statistics chart</source>
        <translation>İstatistik grafiğini dışa aktar</translation>
    </message>
    <message>
        <source>Mean attention per layer</source>
        <translation>Katman başına ortalama dikkat</translation>
    </message>
    <message>
        <source>widened until every pane keeps every token&apos;s label, and ended under the panes</source>
        <translation>her bölme her token&apos;ın etiketini gösterene kadar genişletildi ve bölmelerin altında bitirildi</translation>
    </message>
    <message>
        <source>Stamp images with model, text and measure</source>
        <translation>Görüntülere model, metin ve ölçüyü yaz</translation>
    </message>
    <message>
        <source>Long paragraph (attention sinks; opens on a decoder)</source>
        <translation>Uzun paragraf (dikkat kuyuları; bir kod çözücüde açılır)</translation>
    </message>
</context>
<context>
    <name>attnscope::ModelDropTarget</name>
    <message>
        <source>Drop a model folder (with config.json and model.safetensors) or a .gguf file</source>
        <translation>Bir model klasörü (config.json ve model.safetensors içeren) ya da bir .gguf dosyası bırakın</translation>
    </message>
</context>
<context>
    <name>attnscope::PredictionPanel</name>
    <message>
        <source>Next token after “%1”</source>
        <translation>“%1” sonrasındaki token</translation>
    </message>
    <message>
        <source>%1 (token %2)</source>
        <translation>%1 (token %2)</translation>
    </message>
    <message>
        <source>%1 %2 of %3 (token %4)</source>
        <translation>%1 %2/%3 (token %4)</translation>
    </message>
    <message>
        <source>Type [MASK] in the text to see what the model predicts there.</source>
        <translation>Modelin orada ne tahmin ettiğini görmek için metne [MASK] yazın.</translation>
    </message>
    <message>
        <source>Ablated %1 · KL %2 nats</source>
        <translation>%1 kapalı · KL %2 nat</translation>
    </message>
    <message>
        <source>%1: “%2” %3 → %4</source>
        <translation>%1: “%2” %3 → %4</translation>
    </message>
</context>
<context>
    <name>attnscope::PresenterBar</name>
    <message>
        <source>Type a sentence and press Enter</source>
        <translation>Bir cümle yazıp Enter&apos;a basın</translation>
    </message>
    <message>
        <source>The sentence on screen: type a new one and press Enter</source>
        <translation>Ekrandaki cümle: yenisini yazıp Enter&apos;a basın</translation>
    </message>
    <message>
        <source>Layer %1 · head %2</source>
        <translation>Katman %1 · kafa %2</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>Örnekler</translation>
    </message>
    <message>
        <source>Show one of the example sentences</source>
        <translation>Örnek cümlelerden birini göster</translation>
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
        <translation>Sonraki kafa</translation>
    </message>
    <message>
        <source>Previous head</source>
        <translation>Önceki kafa</translation>
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
    <message>
        <source>Next view</source>
        <translation>Sonraki görünüm</translation>
    </message>
    <message>
        <source>Previous view</source>
        <translation>Önceki görünüm</translation>
    </message>
</context>
<context>
    <name>attnscope::ProgressPanel</name>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
</context>
<context>
    <name>attnscope::RunStateBanner</name>
    <message>
        <source>Failed: %1</source>
        <translation>Başarısız: %1</translation>
    </message>
    <message>
        <source>Failed: %1. The views are cleared.</source>
        <translation>Başarısız: %1. Görünümler temizlendi.</translation>
    </message>
    <message numerus="yes">
        <source>Run the first %n token(s)</source>
        <translation>
            <numerusform>İlk %n token&apos;ı çalıştır</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Run the last %n token(s)</source>
        <translation>
            <numerusform>Son %n token&apos;ı çalıştır</numerusform>
        </translation>
    </message>
    <message>
        <source>Showing the last %1 of %2 tokens (the model takes no more)</source>
        <translation>%2 token&apos;ın son %1 tanesi gösteriliyor (model daha fazlasını almıyor)</translation>
    </message>
    <message>
        <source>Showing the first %1 of %2 tokens (the model takes no more)</source>
        <translation>%2 token&apos;ın ilk %1 tanesi gösteriliyor (model daha fazlasını almıyor)</translation>
    </message>
    <message>
        <source>Type a sentence above to see what each head attends to.</source>
        <translation>Her kafanın neye dikkat ettiğini görmek için yukarıya bir cümle yazın.</translation>
    </message>
</context>
<context>
    <name>attnscope::SeriesChart</name>
    <message numerus="yes">
        <source>%n sink(s) + %1</source>
        <translation>
            <numerusform>%n kuyu + %1</numerusform>
        </translation>
    </message>
    <message>
        <source>full</source>
        <translation>tam</translation>
    </message>
    <message>
        <source>recompute %1</source>
        <translation>yeniden hesapla %1</translation>
    </message>
    <message>
        <source>window %1</source>
        <translation>pencere %1</translation>
    </message>
    <message>
        <source>Running perplexity</source>
        <translation>Birikimli şaşkınlık (perplexity)</translation>
    </message>
    <message>
        <source>token</source>
        <translation>token</translation>
    </message>
    <message>
        <source>eviction begins</source>
        <translation>çıkarma başlar</translation>
    </message>
    <message>
        <source>Attention to the first token per step</source>
        <translation>Adım başına ilk token&apos;a dikkat</translation>
    </message>
    <message>
        <source>step</source>
        <translation>adım</translation>
    </message>
    <message>
        <source>mean over heads</source>
        <translation>kafaların ortalaması</translation>
    </message>
    <message>
        <source>L%1 H%2</source>
        <translation>L%1 H%2</translation>
    </message>
</context>
<context>
    <name>attnscope::StatisticsTab</name>
    <message>
        <source>Label thresholds:</source>
        <translation>Etiket eşikleri:</translation>
    </message>
    <message>
        <source>sink ≥</source>
        <translation>kuyu ≥</translation>
    </message>
    <message>
        <source>[SEP] ≥</source>
        <translation>[SEP] ≥</translation>
    </message>
    <message>
        <source>prev ≥</source>
        <translation>önceki ≥</translation>
    </message>
    <message>
        <source>next ≥</source>
        <translation>sonraki ≥</translation>
    </message>
    <message>
        <source>self ≥</source>
        <translation>kendisi ≥</translation>
    </message>
    <message>
        <source>broad: norm. entropy ≥</source>
        <translation>yaygın: norm. entropi ≥</translation>
    </message>
</context>
<context>
    <name>attnscope::StatusReadouts</name>
    <message>
        <source>computing…</source>
        <translation>hesaplanıyor…</translation>
    </message>
    <message>
        <source>Computing: layer %1 of %2</source>
        <translation>Hesaplanıyor: katman %1 / %2</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
        </translation>
    </message>
    <message>
        <source>backend: %1</source>
        <translation>arka uç: %1</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>başarısız</translation>
    </message>
</context>
<context>
    <name>attnscope::StreamingTab</name>
    <message>
        <source>%1: cannot read it (%2)</source>
        <translation>%1: okunamıyor (%2)</translation>
    </message>
    <message>
        <source>%1: not UTF-8 text</source>
        <translation>%1: UTF-8 metin değil</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>İptal edildi.</translation>
    </message>
    <message>
        <source>Text file</source>
        <translation>Metin dosyası</translation>
    </message>
    <message>
        <source>A long UTF-8 text; %1 is the English text shipped with AttnScope</source>
        <translation>Uzun bir UTF-8 metin; %1, AttnScope ile gelen İngilizce metindir</translation>
    </message>
    <message>
        <source>built-in: %1</source>
        <translation>yerleşik: %1</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Seç…</translation>
    </message>
    <message>
        <source>Cache size</source>
        <translation>Önbellek boyu</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token&apos;lar</translation>
    </message>
    <message>
        <source>Read at most this many tokens of the text</source>
        <translation>Metnin en çok bu kadar token&apos;ını oku</translation>
    </message>
    <message>
        <source>Policies:</source>
        <translation>Politikalar:</translation>
    </message>
    <message>
        <source>window only</source>
        <translation>yalnız pencere</translation>
    </message>
    <message numerus="yes">
        <source>%n sink(s)</source>
        <translation>
            <numerusform>%n kuyu</numerusform>
        </translation>
    </message>
    <message>
        <source>The %1 most recent tokens, the oldest evicted</source>
        <translation>En son %1 token; en eskisi çıkarılır</translation>
    </message>
    <message>
        <source>The first %1 tokens kept, plus the %2 most recent</source>
        <translation>İlk %1 token tutulur, artı en son %2 token</translation>
    </message>
    <message>
        <source>recompute</source>
        <translation>yeniden hesapla</translation>
    </message>
    <message>
        <source>Sliding window with re-computation: each token is predicted by a fresh pass over the previous %1 tokens (the costly gold standard)</source>
        <translation>Yeniden hesaplamalı kayan pencere: her token, önceki %1 token üzerinde yeni bir geçişle tahmin edilir (pahalı altın standart)</translation>
    </message>
    <message>
        <source>full</source>
        <translation>tam</translation>
    </message>
    <message>
        <source>Every earlier token, up to the model&apos;s positions</source>
        <translation>Modelin konumlarına kadar önceki her token</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Çalıştır</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>İptal</translation>
    </message>
    <message>
        <source>Cache at token</source>
        <translation>Önbellek, token</translation>
    </message>
    <message>
        <source>for</source>
        <translation>politika</translation>
    </message>
    <message>
        <source>The streaming experiment needs a decoder model (a built-in decoder or an opened folder); the worked example and the demos have no KV cache.</source>
        <translation>Akış deneyi için bir kod çözücü model gerekir (yerleşik bir kod çözücü ya da açılmış bir klasör); çözümlü örnekte ve demolarda KV önbelleği yok.</translation>
    </message>
    <message>
        <source>%1 is an encoder: it has no KV cache to stream through. Choose a decoder (e.g. tiny-llama-en-tr).</source>
        <translation>%1 bir kodlayıcı: akıtılacak KV önbelleği yok. Bir kod çözücü seçin (örn. tiny-llama-en-tr).</translation>
    </message>
    <message>
        <source>Choose a long text</source>
        <translation>Uzun bir metin seçin</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>Metin dosyaları (*.txt);;Tüm dosyalar (*)</translation>
    </message>
    <message>
        <source>Choose at least one policy.</source>
        <translation>En az bir politika seçin.</translation>
    </message>
    <message>
        <source>A cache of %1 entries is larger than the %2 positions of %3.</source>
        <translation>%1 girdilik önbellek, %3 modelinin %2 konumundan büyük.</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>%1 okunuyor…</translation>
    </message>
    <message>
        <source>%1: %2 of %3 tokens</source>
        <translation>%1: %3 token&apos;dan %2</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) of the text</source>
        <translation>
            <numerusform>metnin %n token&apos;ı</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: perplexity %2 (%3 s)</source>
        <translation>%1: şaşkınlık %2 (%3 sn)</translation>
    </message>
    <message>
        <source>Running perplexity (press Run)</source>
        <translation>Birikimli şaşkınlık (Çalıştır&apos;a basın)</translation>
    </message>
    <message>
        <source>Run a window or sinks policy to see which tokens its cache holds.</source>
        <translation>Önbelleğin hangi token&apos;ları tuttuğunu görmek için bir pencere ya da kuyu politikası çalıştırın.</translation>
    </message>
    <message numerus="yes">
        <source>At token %1 the cache of %2 holds %n token(s) (sinks in orange): </source>
        <translation>
            <numerusform>%1. token&apos;da %2 önbelleği %n token tutuyor (kuyular turuncu): </numerusform>
        </translation>
    </message>
    <message>
        <source>Paragraph per line</source>
        <translation>Satır başına paragraf</translation>
    </message>
    <message>
        <source>&lt;s&gt; p1 &lt;/s&gt; p2 &lt;/s&gt; …, each paragraph followed by the end-of-text token</source>
        <translation>&lt;s&gt; p1 &lt;/s&gt; p2 &lt;/s&gt; …, her paragrafın ardından metin sonu token&apos;ı</translation>
    </message>
    <message>
        <source>&lt;s&gt; p1 p2 …, the paragraphs joined by a space</source>
        <translation>&lt;s&gt; p1 p2 …, paragraflar bir boşlukla birleştirilmiş</translation>
    </message>
    <message>
        <source>Checked: each line is a paragraph, fed as the model was trained (%1; its attnscope.json &quot;paragraphs&quot;). Unchecked: the whole file as one text, line breaks included.</source>
        <translation>İşaretliyse: her satır bir paragraftır ve model nasıl eğitildiyse öyle verilir (%1; modelin attnscope.json &quot;paragraphs&quot; ayarı). İşaretli değilse: dosyanın tamamı satır sonlarıyla birlikte tek metin olarak verilir.</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) of the text, a paragraph per line as the model was trained</source>
        <translation>
            <numerusform>metnin %n token&apos;ı, model nasıl eğitildiyse öyle satır başına bir paragraf</numerusform>
        </translation>
    </message>
    <message>
        <source>No attention sink in this model: window-only and %1 sinks stay within 5% of each other (perplexity %2 and %3). For the StreamingLLM effect, get %4 (Get a model tab).</source>
        <translation>Bu modelde dikkat kuyusu yok: yalnız pencere ile %1 kuyu birbirinin yüzde 5 yakınında kalıyor (şaşkınlık %2 ve %3). StreamingLLM etkisi için %4 modelini edinin (Model edin sekmesi).</translation>
    </message>
</context>
</TS>
