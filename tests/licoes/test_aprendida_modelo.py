"""Notebook 09_atencao_aprendida: as frases, o modelo, o gradiente à mão, o treino e o modelo de data/.

O teste marcado ``slow`` refaz o treino completo (uns 15–30 s); pule com ``pytest -m "not slow"``.
"""

from __future__ import annotations

import collections
import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from helpers.licoes.aprendida import (
    ALVOS,
    LACUNA,
    N_MAX,
    RECEITA_COMPLETA,
    RECEITA_RAPIDA,
    VOCABULARIO,
    Receita,
    acuracia,
    analisar_cabecas,
    carregar_modelo,
    codificar,
    gerar_frases,
    impressao_digital,
    iniciar_modelo,
    ler_metadados,
    nomear_cabecas,
    perda_e_gradientes,
    treinar,
    treinar_sem_atencao,
)
from helpers.licoes.aprendida import analise as an
from helpers.licoes.aprendida import frases as fr
from helpers.licoes.aprendida.arquivo import NOME_MODELO, ambiente
from helpers.licoes.aprendida.rede import _lote, _perda_e_grad_base, _perda_e_grad_modelo
from tools.treinar import N_AVALIACAO, SEMENTE_AVALIACAO

# ---------------------------------------------------------------------------------------------
# As frases
# ---------------------------------------------------------------------------------------------

MUITAS = gerar_frases(4000, semente=3)


def test_posicoes_e_sintagmas():
    for f in MUITAS:
        n = len(f.tokens)
        assert n <= N_MAX
        assert f.posicao_alvo == n - 1 and f.tokens[-1] == LACUNA and LACUNA not in f.tokens[:-1]
        s_art, s_sub = f.posicoes_sujeito
        a_art, a_sub = f.posicoes_atrator
        assert s_sub == s_art + 1 and a_sub == a_art + 1
        assert s_sub < a_art < f.posicao_alvo  # o atrator fica entre o sujeito e a lacuna
        assert f.tokens[s_art] == fr.ARTIGOS[f.classe] and f.tokens[s_sub] in fr.SUBSTANTIVOS[f.classe]
        assert f.tokens[a_art] == fr.ARTIGOS[f.classe_atrator] and f.tokens[a_sub] in fr.SUBSTANTIVOS[f.classe_atrator]
        assert f.tokens[a_art - 1] in fr.PREPOSICOES
        assert f.alvo == ALVOS[f.classe] and f.alvo_atrator == ALVOS[f.classe_atrator]
        if f.posicoes_distrator:
            assert f.posicoes_distrator == [1, 2] and f.tokens[0] in fr.PREPOSICOES_ABERTURA and f.tokens[3] == ","
            assert f.tokens[1] in fr.ARTIGOS and f.tokens[2] in sum(fr.SUBSTANTIVOS, ())
        # artigos (o/a/os/as) e substantivos só existem nos sintagmas marcados
        marcadas = set(f.posicoes_sujeito) | set(f.posicoes_atrator) | set(f.posicoes_distrator)
        substantivos = set(sum(fr.SUBSTANTIVOS, ()))
        for i, t in enumerate(f.tokens):
            if t in fr.ARTIGOS or t in substantivos:
                assert i in marcadas, (str(f), i)


def test_frase_por_atributo_e_por_chave():
    f = MUITAS[0]
    assert f["tokens"] is f.tokens and f["alvo"] == f.alvo and f["posicoes_atrator"] == f.posicoes_atrator
    with pytest.raises(KeyError, match="não tem o campo"):
        f["sujeito"]


def test_atrator_concorda_em_um_quarto_e_discorda_do_resto():
    """O atrator concorda com o sujeito em ~1/4 das frases (o contraste de Linzen et al.) e, quando discorda,
    discorda em gênero, em número ou nos dois, cada caso em ~1/4 das frases."""
    tipos = collections.Counter(
        ("gênero" if (f.classe % 2) != (f.classe_atrator % 2) else "") + ("número" if (f.classe // 2) != (f.classe_atrator // 2) else "")
        for f in MUITAS
    )
    assert set(tipos) == {"", "gênero", "número", "gêneronúmero"}
    assert all(0.21 < c / len(MUITAS) < 0.29 for c in tipos.values()), tipos
    assert all(f.atrator_concorda == (f.alvo_atrator == f.alvo) == (f.classe == f.classe_atrator) for f in MUITAS)
    assert sum(f.atrator_concorda for f in MUITAS) == tipos[""]


@pytest.mark.parametrize("n", [1, 4, 7, 1001, 4000])
def test_classes_balanceadas(n):
    contagem = collections.Counter(f.classe for f in gerar_frases(n, semente=n))
    assert sum(contagem.values()) == n
    assert max(contagem.values()) - min(contagem.get(c, 0) for c in range(4)) <= 1


def test_posicao_do_sujeito_varia():
    inicio = collections.Counter(f.posicoes_sujeito[0] for f in MUITAS)
    atrator = collections.Counter(f.posicoes_atrator[0] for f in MUITAS)
    assert len(inicio) >= 7 and max(inicio.values()) / len(MUITAS) < 0.3, inicio
    assert len(atrator) >= 8 and max(atrator.values()) / len(MUITAS) < 0.3, atrator
    assert 0.2 < np.mean([bool(f.posicoes_distrator) for f in MUITAS]) < 0.3


def test_heuristicas_de_posicao_falham():
    """Concordar com o sintagma mais próximo (o atrator) acerta só quando ele concorda (~1/4); com o primeiro,
    ~81%."""
    primeiro = [f.classe == (f.classe if not f.posicoes_distrator else fr.ARTIGOS.index(f.tokens[1])) for f in MUITAS]
    assert 0.21 < np.mean([f.classe_atrator == f.classe for f in MUITAS]) < 0.29
    assert 0.75 < np.mean(primeiro) < 0.86


def test_treino_e_avaliacao_sem_frases_em_comum():
    """Nenhuma frase de avaliação está no treino (nem nas do modelo de data/, nem nas do treino curto)."""
    treino = {str(f) for f in gerar_frases(RECEITA_COMPLETA.n_frases, semente=RECEITA_COMPLETA.semente_frases,
                                           conjunto="treino")}
    curto = {str(f) for f in gerar_frases(RECEITA_RAPIDA.n_frases, semente=RECEITA_RAPIDA.semente_frases,
                                          conjunto="treino")}
    avaliacao = [str(f) for f in fr.frases_de_avaliacao()]
    assert len(avaliacao) == N_AVALIACAO
    assert not (treino | curto) & set(avaliacao)
    # sem a divisão, sementes diferentes repetem frases curtas: o teste acima não passa por acaso
    sem_divisao = {str(f) for f in gerar_frases(RECEITA_COMPLETA.n_frases, semente=RECEITA_COMPLETA.semente_frases)}
    assert sem_divisao & {str(f) for f in gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)}


def test_divisao_pela_impressao_digital():
    """A mesma frase cai sempre no mesmo conjunto; ~1/10 das frases é de avaliação; classes balanceadas."""
    conjuntos = [fr.conjunto_da_frase(f.tokens) for f in MUITAS]
    assert 0.07 < conjuntos.count("avaliacao") / len(MUITAS) < 0.13
    for conjunto in ("treino", "avaliacao"):
        frases = gerar_frases(401, semente=5, conjunto=conjunto)
        assert all(fr.conjunto_da_frase(f.tokens) == conjunto for f in frases)
        contagem = collections.Counter(f.classe for f in frases)
        assert max(contagem.values()) - min(contagem.values()) <= 1
    with pytest.raises(ValueError, match="conjunto"):
        gerar_frases(3, conjunto="teste")


def test_deterministico_pela_semente():
    a, b, c = gerar_frases(50, semente=9), gerar_frases(50, semente=9), gerar_frases(50, semente=10)
    assert a == b and a != c


@pytest.mark.parametrize("n", [0, -1, 2.0, True, "3"])
def test_n_invalido(n):
    with pytest.raises(ValueError, match="n precisa ser"):
        gerar_frases(n)


def test_semente_invalida():
    with pytest.raises(ValueError, match="semente"):
        gerar_frases(3, semente=-1)


def test_vocabulario_e_codificar():
    assert len(VOCABULARIO) == len(set(VOCABULARIO)) and VOCABULARIO == fr.vocabulario()
    for f in MUITAS[:50]:
        assert [VOCABULARIO[i] for i in codificar(f.tokens)] == f.tokens
    with pytest.raises(ValueError, match=r"'bicicleta' \(posição 1\) não está no vocabulário"):
        codificar(["o", "bicicleta", LACUNA])
    with pytest.raises(ValueError, match="minúsculas: 'o'"):
        codificar(["O", "bolo", LACUNA])
    with pytest.raises(ValueError, match="vazia"):
        codificar([])
    with pytest.raises(ValueError, match="lista de palavras"):
        codificar("o bolo ___")


def test_nenhuma_forma_do_predicado_na_entrada():
    """A cópula ("está/estão") e o adjetivo ("pronto…") só existem na resposta, nunca antes da lacuna."""
    for palavra in VOCABULARIO:
        assert palavra not in {"está", "estão", "é", "são", "estava", "estavam", "fica", "ficam"}
        assert not palavra.startswith("pront")


# -- o vazamento: sem o sujeito, nada acerta mais do que o atrator permite -------------------------


def _atributos(f: fr.Frase, esconder: set[int]) -> list[str]:
    toks = ["<escondida>" if i in esconder else t for i, t in enumerate(f.tokens)]
    n = len(toks)
    return ([f"saco:{t}" for t in toks] + [f"pos{i}:{t}" for i, t in enumerate(toks)]
            + [f"fim{n - 1 - i}:{t}" for i, t in enumerate(toks)] + [f"n:{n}"])


def _sonda(treino, teste, esconder, passos: int = 120) -> float:
    """Regressão logística (softmax, Adam) sobre saco de palavras + palavra em cada posição (do começo
    e do fim) + comprimento, treinada em ``treino``; devolve a acurácia em ``teste``."""
    indice: dict[str, int] = {}

    def ids(frases, criar):
        linhas = []
        for f in frases:
            linha = []
            for a in _atributos(f, esconder(f)):
                if a not in indice and criar:
                    indice[a] = len(indice) + 1
                linha.append(indice.get(a, 0))  # 0: atributo nunca visto (peso fixo 0)
            linhas.append(linha)
        largura = max(map(len, linhas))
        return np.array([linha + [0] * (largura - len(linha)) for linha in linhas])

    x_tr, x_te = ids(treino, True), ids(teste, False)
    y_tr, y_te = np.array([f.classe for f in treino]), np.array([f.classe for f in teste])
    F, B = len(indice) + 1, len(y_tr)
    W = np.zeros((F, 4))
    m, v = np.zeros_like(W), np.zeros_like(W)
    for t in range(1, passos + 1):
        z = W[x_tr].sum(axis=1)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(B), y_tr] -= 1.0
        p /= B
        g = np.stack([np.bincount(x_tr.ravel(), weights=np.repeat(p[:, c], x_tr.shape[1]), minlength=F)
                      for c in range(4)], axis=1)
        g[0] = 0.0
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        W -= 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return float(np.mean(W[x_te].sum(axis=1).argmax(axis=1) == y_te))


@pytest.fixture(scope="module")
def frases_da_sonda():
    return gerar_frases(4000, semente=11), gerar_frases(3000, semente=12)


def test_sonda_acha_a_resposta_quando_o_sujeito_esta_la(frases_da_sonda):
    """Controle: a mesma sonda, vendo a frase inteira, acerta quase tudo (ela é capaz)."""
    assert _sonda(*frases_da_sonda, lambda f: set()) > 0.9


def test_sem_o_sujeito_nao_ha_vazamento(frases_da_sonda):
    """Sem o sujeito (artigo + substantivo), a sonda não passa do acaso (1/4): o atrator é sorteado sem olhar
    o sujeito e não diz nada sobre a resposta."""
    sem_sujeito = _sonda(*frases_da_sonda, lambda f: set(f.posicoes_sujeito))
    assert sem_sujeito < 1 / 4 + 0.04, sem_sujeito


def test_dado_o_atrator_o_sujeito_e_uniforme():
    por_atrator = collections.defaultdict(collections.Counter)
    for f in MUITAS:
        por_atrator[f.classe_atrator][f.classe] += 1
    for ca, contagem in por_atrator.items():
        assert set(contagem) == set(range(4))
        total = sum(contagem.values())
        assert all(0.2 < c / total < 0.3 for c in contagem.values()), (ca, contagem)


def test_a_pista_local_regra_do_artigo_e_bigramas(frases_da_sonda):
    """Sem vazamento não quer dizer sem atalho: a palavra antes de cada artigo diz qual é o sujeito."""
    treino, teste = frases_da_sonda
    assert an.acuracia_regra_do_artigo(teste) == 1.0
    # controle: o primeiro artigo, sem olhar a palavra anterior, erra quando um distrator discorda do sujeito
    primeiro = np.mean([fr.ARTIGOS.index(next(t for t in f.tokens if t in fr.ARTIGOS)) == f.classe for f in teste])
    assert primeiro < 0.9
    assert an.acuracia_bigramas(treino[:2000], teste) > 0.99
    # sem os bigramas que terminam num artigo de sujeito, o saco de bigramas não acha a resposta
    assert an.acuracia_bigramas(treino[:2000], teste, passos=0) == np.mean([f.classe == 0 for f in teste])


# ---------------------------------------------------------------------------------------------
# O gradiente à mão contra diferenças finitas
# ---------------------------------------------------------------------------------------------


def _confere_gradiente(perda_grad, p, frases_usadas, eps=1e-6):
    lote = _lote(frases_usadas)
    _, g = perda_grad(p, lote)
    usados = set(lote.ids[lote.mascara].tolist())
    for nome, a in p.items():
        assert g[nome].shape == a.shape
        if nome == "embedding":  # linhas de palavras fora do lote: gradiente exatamente 0
            fora = sorted(set(range(len(a))) - usados)
            assert not g[nome][fora].any()
            coords = [(i, j) for i in sorted(usados) for j in range(a.shape[1])]
        else:
            coords = list(np.ndindex(a.shape))
        num = np.empty(len(coords))
        for k, idx in enumerate(coords):
            velho = a[idx]
            a[idx] = velho + eps
            mais = perda_grad(p, lote)[0]
            a[idx] = velho - eps
            menos = perda_grad(p, lote)[0]
            a[idx] = velho
            num[k] = (mais - menos) / (2 * eps)
        analitico = np.array([g[nome][idx] for idx in coords])
        escala = np.abs(num).max()
        assert escala > 0, nome
        np.testing.assert_allclose(analitico, num, rtol=1e-6, atol=1e-6 * escala, err_msg=nome)


@pytest.mark.parametrize("residual", [True, False])
def test_gradiente_do_modelo(residual):
    r = Receita(d_model=8, n_camadas=2, n_cabecas=2, residual=residual, semente=4)
    modelo = iniciar_modelo(r)
    frases = gerar_frases(5, semente=21)  # comprimentos diferentes: o enchimento e a máscara entram
    assert len({len(f.tokens) for f in frases}) > 1
    _confere_gradiente(lambda p, lote: _perda_e_grad_modelo(p, lote, 2, residual), modelo.parametros, frases)


def test_gradiente_da_baseline():
    p = {k: v for k, v in iniciar_modelo(Receita(d_model=4, n_cabecas=2, semente=5)).parametros.items()
         if k in ("embedding", "posicao", "w_saida", "b_saida")}
    _confere_gradiente(_perda_e_grad_base, p, gerar_frases(5, semente=22))


def test_perda_e_gradientes_publica():
    modelo = iniciar_modelo(Receita(d_model=8, n_cabecas=2))
    perda, g = perda_e_gradientes(modelo, gerar_frases(8))
    assert np.isfinite(perda) and abs(perda - np.log(4)) < 1.5  # perto do acaso no começo
    assert set(g) == set(modelo.parametros)


# ---------------------------------------------------------------------------------------------
# O treino: determinístico e reproduzível
# ---------------------------------------------------------------------------------------------


def _iguais(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_mesma_semente_mesmos_bits():
    r = replace(RECEITA_RAPIDA, passos=30)
    t1, t2 = treinar(r), treinar(r)
    assert _iguais(t1.modelo.parametros, t2.modelo.parametros)
    assert np.array_equal(t1.perdas, t2.perdas)
    outra = treinar(replace(r, semente=1))
    assert not _iguais(t1.modelo.parametros, outra.modelo.parametros)


def test_parar_no_meio_e_o_comeco_do_mesmo_treino():
    chamadas = []
    parado = treinar(RECEITA_RAPIDA, ao_passo=lambda passo, perda: chamadas.append((passo, perda)) or passo < 12)
    curto = treinar(RECEITA_RAPIDA, passos=12)
    assert [c[0] for c in chamadas] == list(range(1, 13))
    assert _iguais(parado.modelo.parametros, curto.modelo.parametros)
    assert np.array_equal(parado.perdas, curto.perdas)


def test_treino_rapido_aprende():
    """A receita curta do notebook (a que roda no nbval) já passa de 90% em frases novas."""
    t = treinar(RECEITA_RAPIDA)
    assert t.perdas[-10:].mean() < 0.3 * t.perdas[:10].mean()
    assert acuracia(t.modelo, gerar_frases(500, semente=SEMENTE_AVALIACAO)) > 0.9


@pytest.fixture(scope="module")
def meta():
    return ler_metadados()


def test_os_primeiros_passos_reproduzem_a_receita_do_modelo_de_data(meta):
    receita = Receita(**meta["receita"])
    assert receita == RECEITA_COMPLETA  # o modelo de data/ é o da receita do código
    ver = meta["verificacao"]
    t = treinar(receita, passos=ver["passos"])
    if meta["ambiente"] == ambiente():  # mesma máquina/BLAS/numpy: bit a bit
        assert impressao_digital(t.modelo.parametros) == ver["sha256"]
        assert t.perdas.tolist() == ver["perdas"]
    else:  # outro BLAS pode arredondar diferente: as perdas ainda batem a 1e-9
        np.testing.assert_allclose(t.perdas, ver["perdas"], rtol=1e-9)


@pytest.mark.slow
def test_treino_completo_reproduz_o_modelo_de_data(meta):
    if meta["ambiente"] != ambiente():
        pytest.skip(f"o modelo de data/ foi treinado em outro ambiente ({meta['ambiente']}); bits podem diferir")
    t = treinar(Receita(**meta["receita"]))
    assert impressao_digital(t.modelo.parametros) == meta["sha256_parametros"]
    assert len(t.perdas) == meta["passos"]


# ---------------------------------------------------------------------------------------------
# O modelo que vem em data/
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modelo():
    return carregar_modelo()


@pytest.fixture(scope="module")
def novas(meta):
    assert SEMENTE_AVALIACAO != meta["receita"]["semente_frases"]
    return fr.frases_de_avaliacao()


def test_arquivos_pequenos_sem_pickle(meta):
    from helpers.data import PASTA_DADOS

    npz = PASTA_DADOS / f"{NOME_MODELO}.npz"
    assert npz.stat().st_size < 200_000
    with np.load(npz, allow_pickle=False) as dados:
        assert all(dados[k].dtype == np.float64 for k in dados.files)
    texto = (PASTA_DADOS / f"{NOME_MODELO}.json").read_text(encoding="utf-8")
    json.loads(texto, parse_constant=lambda c: pytest.fail(f"o JSON tem {c}"))
    assert meta["passos"] == RECEITA_COMPLETA.passos


def test_modelo_de_data_acerta_95_por_cento(modelo, novas, meta):
    acerto = acuracia(modelo, novas)
    assert acerto >= 0.95
    assert acerto == meta["avaliacao"]["acuracia"]  # o número gravado é o que se mede


def test_sem_treino_e_sem_atencao_acertam_bem_menos(modelo, novas):
    sem_treino = acuracia(iniciar_modelo(modelo.receita), novas)
    sem_atencao = acuracia(treinar_sem_atencao(modelo.receita).modelo, novas)
    assert sem_treino < 0.4
    # vê as palavras, não sabe qual sintagma é o sujeito: acerta quando o atrator concorda (1/4) e chuta entre
    # as duas classes da frase quando ele discorda: ~1/4 + 3/4 · 1/2 = 5/8
    assert sem_atencao < 0.7
    assert acuracia(modelo, novas) - sem_atencao > 0.3


def test_uma_cabeca_faz_a_concordancia(modelo, novas):
    analise = analisar_cabecas(modelo, novas)
    sujeito, atrator = analise.medidas["sujeito"], analise.medidas["atrator"]
    assert sujeito.shape == atrator.shape == (modelo.n_camadas, modelo.n_cabecas)
    assert ((sujeito >= 0.5) & (atrator <= 0.2)).any(), analise.tabela()
    nomes = nomear_cabecas(analise)
    assert any("concordância" in n for lista in nomes.values() for n in lista)
    # a referência uniforme é a mesma em toda cabeça e fica bem abaixo da cabeça da concordância
    assert np.ptp(analise.uniforme["sujeito"]) == 0 and analise.uniforme["sujeito"].max() < 0.25


def test_prever_e_atencao_numa_frase_digitada(modelo):
    assert modelo.prever("o bolo para as meninas ___") == "está pronto"
    assert modelo.prever("segundo a vizinha , as cartas sem o livro já ___".split()) == "estão prontas"
    tokens = "eu acho que os quadros com a menina da escola ___".split()
    w = modelo.atencao(tokens)
    assert w.shape == (modelo.n_camadas, modelo.n_cabecas, len(tokens), len(tokens))
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    p = modelo.probabilidades(tokens)
    assert p.shape == (4,) and abs(p.sum() - 1) < 1e-12 and ALVOS[int(p.argmax())] == modelo.prever(tokens)


def test_atencao_de_uma_frase_igual_a_do_lote(modelo, novas):
    lote = modelo.atencao_lote(novas[:20])
    for b, f in enumerate(novas[:20]):
        n = len(f.tokens)
        np.testing.assert_allclose(modelo.atencao(f.tokens), lote[b, :, :, :n, :n], atol=1e-12)
        assert not lote[b, :, :, :, n:].any()  # o enchimento tem peso 0


@pytest.mark.parametrize(("frase", "trecho"), [
    ("o carro para as meninas ___", r"'carro' \(posição 1\) não está no vocabulário"),
    ("o bolo para as meninas", "precisa terminar com a lacuna"),
    (" ".join(["hoje"] * N_MAX + [LACUNA]), f"até {N_MAX} palavras"),
])
def test_frase_invalida_da_erro_em_portugues(modelo, frase, trecho):
    with pytest.raises(ValueError, match=trecho):
        modelo.prever(frase)
    with pytest.raises(ValueError, match=trecho):
        modelo.atencao(frase)


def test_arquivos_trocados_sao_recusados(tmp_path):
    from helpers.data import PASTA_DADOS

    for ext in ("npz", "json"):
        shutil.copy(PASTA_DADOS / f"{NOME_MODELO}.{ext}", tmp_path)
    assert impressao_digital(carregar_modelo(tmp_path).parametros) == ler_metadados(tmp_path)["sha256_parametros"]
    js = tmp_path / f"{NOME_MODELO}.json"
    meta = json.loads(js.read_text(encoding="utf-8"))
    meta["sha256_parametros"] = "0" * 64
    js.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="não batem com a impressão digital"):
        carregar_modelo(tmp_path)
    with pytest.raises(ValueError, match="não encontrei"):
        carregar_modelo(tmp_path / "vazia")


@pytest.mark.parametrize(("campo", "valor", "trecho"), [
    ("d_model", 30, "divisível por n_cabecas"),
    ("passos", 0, "passos precisa ser"),
    ("taxa", -1.0, "taxa precisa ser"),
    ("beta1", 1.0, r"beta1 precisa estar em \[0, 1\)"),
])
def test_receita_invalida(campo, valor, trecho):
    with pytest.raises(ValueError, match=trecho):
        replace(RECEITA_COMPLETA, **{campo: valor, "n_cabecas": 4} if campo == "d_model" else {campo: valor})


# ---------------------------------------------------------------------------------------------
# Atrator que concorda e erros de atração; remendo de ativação; a tabela das sementes
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modelo_curto():
    """O treino curto do notebook (100 passos da receita rápida): ainda erra algumas frases."""
    treino = gerar_frases(RECEITA_RAPIDA.n_frases, semente=RECEITA_RAPIDA.semente_frases, conjunto="treino")
    return treinar(RECEITA_RAPIDA, passos=100, frases=treino).modelo


def test_acuracia_por_atrator_e_erros_de_atracao_frase_a_frase(modelo_curto, novas):
    """Conferidos com a previsão de cada frase, uma por vez (``prever`` numa frase digitada)."""
    previstas = [fr.classe_do_alvo(modelo_curto.prever(f.tokens)) for f in novas]
    concorda = [p == f.classe for p, f in zip(previstas, novas) if f.atrator_concorda]
    discorda = [(p, f) for p, f in zip(previstas, novas) if not f.atrator_concorda]
    tabela = an.acuracia_por_atrator(modelo_curto, novas)
    assert tabela["n_concorda"] == len(concorda) and tabela["n_discorda"] == len(discorda)
    assert tabela["concorda"] == pytest.approx(np.mean(concorda))
    assert tabela["discorda"] == pytest.approx(np.mean([p == f.classe for p, f in discorda]))
    erros = an.erros_de_atracao(modelo_curto, novas)
    erradas = [(p, f) for p, f in discorda if p != f.classe]
    assert erros == {"frases": len(discorda), "erros": len(erradas),
                     "atracao": sum(p == f.classe_atrator for p, f in erradas)}
    # o modelo curto erra, e erra mais quando o atrator discorda; a maior parte dos erros é de atração
    assert erros["erros"] > 10 and tabela["discorda"] < tabela["concorda"]
    assert erros["atracao"] > erros["erros"] / 3
    with pytest.raises(ValueError, match="concorda"):
        an.acuracia_por_atrator(modelo_curto, [f for f in novas if f.atrator_concorda])


def test_contrafactual_troca_so_o_sujeito():
    for f, c in zip(MUITAS[:200], an.contrafactuais(MUITAS[:200], semente=3)):
        assert c.classe != f.classe and c.alvo == ALVOS[c.classe] and len(c.tokens) == len(f.tokens)
        mudou = [i for i, (a, b) in enumerate(zip(f.tokens, c.tokens)) if a != b]
        assert set(mudou) <= set(f.posicoes_sujeito) and mudou
        assert c.tokens[c.posicoes_sujeito[0]] == fr.ARTIGOS[c.classe]
        assert fr.SUBSTANTIVOS[c.classe].index(c.tokens[c.posicoes_sujeito[1]]) == \
            fr.SUBSTANTIVOS[f.classe].index(f.tokens[f.posicoes_sujeito[1]])
    assert an.contrafactual(gerar_frases(1, semente=0)[0], 2).classe == 2
    with pytest.raises(ValueError, match="classe"):
        an.contrafactual(MUITAS[0], 4)


def _remendo_frase_a_frase(modelo, frase, contra, camada, cabeca):
    """Segunda implementação do remendo, uma frase por vez, com numpy puro: a saída da cabeça ``cabeca`` da
    camada ``camada`` na lacuna vem da frase ``contra``; devolve a classe prevista."""
    p, H = modelo.parametros, modelo.n_cabecas
    d_head = modelo.receita.d_model // H

    def cabecas(x, c):
        saidas = []
        for h in range(H):
            fatia = slice(h * d_head, (h + 1) * d_head)
            q, k, v = (x @ p[f"{w}{c}"][:, fatia] for w in ("w_q", "w_k", "w_v"))
            s = q @ k.T / np.sqrt(d_head)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            saidas.append((w / w.sum(axis=1, keepdims=True)) @ v)
        return saidas

    def frente(tokens, trocar=None):
        x = p["embedding"][codificar(tokens)] + p["posicao"][: len(tokens)]
        for c in range(modelo.n_camadas):
            saidas = cabecas(x, c)
            if c == camada and trocar is not None:
                saidas[cabeca] = saidas[cabeca].copy()
                saidas[cabeca][-1] = trocar
            if c == camada and trocar is None:
                guardada = saidas[cabeca][-1].copy()
            x = x + np.concatenate(saidas, axis=1) @ p[f"w_o{c}"]
        return x[-1] @ p["w_saida"] + p["b_saida"], (guardada if trocar is None else None)

    _, da_contra = frente(contra.tokens)
    logits, _ = frente(frase.tokens, trocar=da_contra)
    return int(np.argmax(logits))


def test_remendo_bate_com_uma_segunda_implementacao(modelo, novas):
    frases = novas[:40]
    contra = an.contrafactuais(frases)
    for camada, cabeca in [(0, 1), (1, 1)]:
        lacunas = np.array([f.posicao_alvo for f in frases])
        previstas = an.prever_com_remendo(modelo, frases, contra, camada,
                                          lambda limpa, outra, h=cabeca, lac=lacunas: an.remendo_na_lacuna(limpa, outra, h, lac))
        esperadas = [_remendo_frase_a_frase(modelo, f, c, camada, cabeca) for f, c in zip(frases, contra)]
        assert previstas.tolist() == esperadas
        assert an.efeito_do_remendo(modelo, frases, camada, cabeca) == \
            pytest.approx(np.mean([e == c.classe for e, c in zip(esperadas, contra)]))


def test_remendo_com_a_propria_frase_ou_fora_da_lacuna_nao_muda_nada(modelo, novas):
    frases = novas[:200]
    classes = np.array([f.classe for f in frases])
    mesma = an.prever_com_remendo(modelo, frases, frases, 1, lambda limpa, outra: outra)
    assert np.array_equal(mesma, modelo.prever_lote(frases))
    contra = an.contrafactuais(frases)
    # remendar uma cabeça fora da lacuna, na última camada, não muda nada: só a lacuna chega à leitura
    fora = an.prever_com_remendo(modelo, frases, contra, 1,
                                 lambda limpa, outra: np.where(np.arange(limpa.shape[2])[None, None, :, None]
                                                               == np.array([f.posicao_alvo for f in frases])[:, None, None, None],
                                                               limpa, outra))
    assert np.array_equal(fora, modelo.prever_lote(frases))
    assert an.fracao_que_segue(classes, classes) == 1.0 and an.fracao_que_segue(classes, (classes + 1) % 4) == 0.0
    with pytest.raises(ValueError, match="forma"):
        an.prever_com_remendo(modelo, frases, contra, 1, lambda limpa, outra: outra[:, :1])


@pytest.fixture(scope="module")
def sementes():
    from helpers.licoes.aprendida.arquivo import ler_sementes

    return ler_sementes()


def test_tabela_das_sementes_coerente_com_o_modelo_de_data(sementes, meta, modelo, novas):
    from tools.treinar import SEMENTES

    linhas = sementes["linhas"]
    assert [ln["semente"] for ln in linhas] == list(SEMENTES) and len(SEMENTES) == 5
    zero = linhas[0]
    assert zero["sha256"] == meta["sha256_parametros"]  # a semente 0 é o modelo de data/
    assert {k: v for k, v in zero.items() if k not in ("semente", "sha256")} == an.medir_semente(modelo, novas)
    assert sementes["receita"] == {k: v for k, v in meta["receita"].items() if k != "semente"}
    for ln in linhas:
        assert ln["acuracia"] >= 0.95 and 0 <= ln["segue_com_remendo"] <= 1
        assert ln["camada"] == int(ln["cabeca"][0])


@pytest.mark.slow
def test_uma_semente_retreinada_reproduz_a_sua_linha(sementes):
    """Retreina a semente 4 do zero e confere a linha inteira (na mesma máquina, bit a bit)."""
    from tools.treinar import linha_da_semente

    if sementes["ambiente"] != ambiente():
        pytest.skip(f"a tabela foi feita em outro ambiente ({sementes['ambiente']}); bits podem diferir")
    linha = next(ln for ln in sementes["linhas"] if ln["semente"] == 4)
    assert linha_da_semente(4) == linha
