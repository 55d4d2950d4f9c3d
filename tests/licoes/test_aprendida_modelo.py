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

from helpers.licoes.aprendida import frases as fr
from helpers.licoes.aprendida.arquivo import NOME_MODELO, ambiente
from helpers.licoes.aprendida.rede import _lote, _perda_e_grad_base, _perda_e_grad_modelo
from helpers.modelo import (
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


def test_atrator_sempre_discorda_e_concordar_com_ele_erra():
    assert all(f.classe_atrator != f.classe and f.alvo_atrator != f.alvo for f in MUITAS)
    # discorda em gênero, em número ou nos dois, cada caso em ~1/3 das frases
    tipos = collections.Counter(
        ("gênero" if (f.classe % 2) != (f.classe_atrator % 2) else "") + ("número" if (f.classe // 2) != (f.classe_atrator // 2) else "")
        for f in MUITAS
    )
    assert set(tipos) == {"gênero", "número", "gêneronúmero"}
    assert all(0.28 < c / len(MUITAS) < 0.39 for c in tipos.values()), tipos


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
    """Concordar com o sintagma mais próximo (o atrator) erra sempre; com o primeiro, ~81%."""
    primeiro = [f.classe == (f.classe if not f.posicoes_distrator else fr.ARTIGOS.index(f.tokens[1])) for f in MUITAS]
    assert np.mean([f.classe_atrator == f.classe for f in MUITAS]) == 0.0
    assert 0.75 < np.mean(primeiro) < 0.86


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
    """Sem o sujeito (artigo + substantivo), a sonda não passa de 1/3: o atrator só diz qual classe a
    resposta não é. Sem o sujeito e sem o atrator, não passa do acaso (1/4)."""
    sem_sujeito = _sonda(*frases_da_sonda, lambda f: set(f.posicoes_sujeito))
    sem_os_dois = _sonda(*frases_da_sonda, lambda f: set(f.posicoes_sujeito) | set(f.posicoes_atrator))
    assert sem_sujeito < 1 / 3 + 0.04, sem_sujeito
    assert sem_os_dois < 1 / 4 + 0.04, sem_os_dois


def test_dado_o_atrator_o_sujeito_e_uniforme_entre_as_outras_classes():
    por_atrator = collections.defaultdict(collections.Counter)
    for f in MUITAS:
        por_atrator[f.classe_atrator][f.classe] += 1
    for ca, contagem in por_atrator.items():
        assert set(contagem) == set(range(4)) - {ca}
        total = sum(contagem.values())
        assert all(0.28 < c / total < 0.39 for c in contagem.values()), (ca, contagem)


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
    return gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)


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
    assert sem_atencao < 0.6  # vê as palavras, não sabe qual sintagma é o sujeito (~1/2)
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
