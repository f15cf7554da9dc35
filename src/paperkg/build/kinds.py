"""What kind of thing a concept is, and what a paper does with it.

Rules over the words themselves and the sentences around them, because no typed
vocabulary of methods and datasets ships offline:
- the head word ("... network" is a Method, "... dataset" a Dataset, "... accuracy" a
  Metric, "... segmentation" a Task);
- evaluation lists ("experiments on GSM8K, MATH, and AQuA") name datasets;
- "we propose/introduce X" (with X defined as an abbreviation, or "called X") names the
  method (or benchmark) a paper contributes.
Corpus-wide, each concept takes the kind most of its evidence points to.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from paperkg.build.terms import Abbreviation, term_key
from paperkg.vocab import PLAIN_CONCEPT

__all__ = ["PaperRoles", "head_kind", "paper_roles", "vote_kind"]


_DATASET_HEADS = frozenset(
    "dataset benchmark corpus suite bench testbed leaderboard arena database".split())
_METRIC_HEADS = frozenset("""
accuracy precision recall f1 bleu rouge auc auroc auprc perplexity fid psnr ssim lpips mse rmse
mae metric meteor cider spice ndcg mrr map iou miou
""".split())
_METRIC_PHRASES = ("success rate", "win rate", "error rate", "f1 score", "inception score",
                   "bleu score", "pass@k", "exact match", "fréchet inception distance",
                   "frechet inception distance", "mean squared error", "top 1 accuracy")
# a key can end in one of those only if it ends in its last word (a set lookup first: the
# phrase test ran 825k times in a full build)
_METRIC_PHRASE_ENDS = frozenset(m.split()[-1] for m in _METRIC_PHRASES)
_TASK_HEADS = frozenset("""
classification detection segmentation generation translation retrieval recognition prediction
forecasting answering summarization estimation synthesis completion captioning tracking
planning localization reconstruction editing navigation imputation inpainting reasoning
discovery understanding unlearning attribution verification repair extraction parsing
tagging grounding manipulation
""".split())
_METHOD_HEADS = frozenset("""
network model algorithm method framework architecture transformer attention optimizer
tuning finetuning fine distillation regularization sampling sampler encoder decoder
autoencoder mechanism estimator layer adapter adaptation pruning quantization augmentation
prompting decoding search descent ensemble lora gan vae policy operator solver embedding
kernel machine perceptron tree forest rlhf dpo ppo optimization training pretraining
""".split())

_PROPOSE = re.compile(
    r"\b(?:we|this (?:paper|work)|our (?:paper|work))\s+(?:\w+\s+){0,2}?"
    r"(?:propose|introduce|present|develop|design|devise|put forward|contribute|release|"
    r"construct|build|curate|create)s?\b(?P<rest>[^.;]*)", re.I)
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed|coined)\s+(?P<name>[A-Z][\w\-+.]*"
                     r"(?:\s+[A-Z][\w\-+.]*){0,4})")
_NAME_FIRST = re.compile(r"^\s*(?P<name>[A-Z][A-Za-z0-9]*[A-Z0-9][\w\-+.]*)\s*[,:(]")
_STOP_BETWEEN = re.compile(r"\b(?:for|on|to|of|with|in|from|by|that|which|and|using|via)\b", re.I)
_EVAL_LIST = re.compile(
    r"\b(?:on|including|such as|like|datasets?|benchmarks?|namely)\s*[:(]?\s*"
    r"(?P<items>(?:(?:the\s+)?[A-Z][\w\-+.]*[A-Za-z0-9](?:\s+\d+)?\s*(?:,\s*(?:and\s+)?|\s+and\s+|"
    r"\s*,?\s*as well as\s+)){1,12}(?:the\s+)?[A-Z][\w\-+.]*[A-Za-z0-9])")
# A list of names is what a paper evaluates on only where its sentence speaks of evaluation:
# "regulations such as GDPR and CCPA", "alignment algorithms such as RLHF and DPO", "models
# like CLIP and CLAP" are not datasets (94 of 687 such lists in ICLR 2025 lack it; 27 of a
# random 30 of them name methods, hardware, metrics or laws).
_EVAL_CONTEXT = re.compile(
    r"\b(?:experiment|evaluat|benchmark|dataset|data set|corpus|corpora|test|result|"
    r"outperform|achiev|empiric|validat|ranks?\b|(?:pre-?)?train(?:ed|ing) on|fine-?tuned on|"
    r"tasks?\b|accuracy|state-of-the-art|SOTA)", re.I)
# ... and not where the list's own noun says it names methods: "methods such as ReLoRA and
# GaLore", "architectures such as CNNs and ViTs", "baselines like FedAvg and FedProx" (75
# more lists in ICLR 2025; a sample of 25 read: all methods or models).
_METHOD_LIST = re.compile(
    r"\b(?:models?|methods?|algorithms?|approaches|techniques?|architectures?|optimi[sz]ers?|"
    r"baselines?|frameworks?|variants?|LLMs|networks?|detectors?|solvers?|paradigms?|"
    r"strategies|works?)\s*,?\s*(?:such as|like|including|namely)\s*[:(]?\s*$", re.I)
_NAMEISH = re.compile(r"[A-Z].*(?:[A-Z]|\d)|[A-Z][a-z]+[A-Z]")
# Model names in an evaluation list are what was evaluated, not what it was evaluated on.
_MODELISH = re.compile(
    r"\d+(?:\.\d+)?[BMbm]\b|llama|mistral|mixtral|gemma|gpt|qwen|claude|phi-?\d|bert|\bt5|"
    r"vicuna|falcon|\bopt\b|pythia|deepseek|olmo|gemini|palm|chatglm|resnet|\bvit\b|clip", re.I)


def head_kind(key: str) -> str | None:
    """The kind a term's last word (or the whole term) implies, if any."""
    key = key.lower()
    words = key.split()
    if not words:
        return None
    head = words[-1]
    if head in _METRIC_HEADS or head in _METRIC_PHRASE_ENDS and any(
            key == m or key.endswith(" " + m) for m in _METRIC_PHRASES):
        return "Metric"
    if head in _DATASET_HEADS or head.endswith("bench"):
        return "Dataset"
    if head in _TASK_HEADS and len(words) > 1:
        return "Task"
    if head in _METHOD_HEADS and len(words) > 1:
        return "Method"
    return None


def vote_kind(key: str, votes: Counter[str]) -> str:
    """The head word decides when it speaks; otherwise the majority of the evidence."""
    by_head = head_kind(key)
    if by_head is not None:
        return by_head
    if votes:
        kind, n = votes.most_common(1)[0]
        if n * 2 >= sum(votes.values()):
            return kind
    return PLAIN_CONCEPT


@dataclass(frozen=True, slots=True)
class PaperRoles:
    """Names a paper proposes, and names it evaluates on (as written in the text)."""

    proposes: tuple[str, ...]
    evaluated_on: tuple[str, ...]


def paper_roles(text: str, abbrevs: list[Abbreviation]) -> PaperRoles:
    """Find "we propose X (ABBR)" / "called X" contributions and evaluation lists."""
    proposes: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        for m in _PROPOSE.finditer(sentence):
            rest = m.group("rest")
            for name in _proposed_names(rest, abbrevs):
                if name not in proposes:
                    proposes.append(name)
    evaluated: list[str] = []
    for m in _EVAL_LIST.finditer(text):
        if not _EVAL_CONTEXT.search(_sentence_at(text, m.start(), m.end())) or \
                _METHOD_LIST.search(text[max(m.start() - 40, 0): m.start("items")]):
            continue
        items = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*,?\s*as well as\s+", m.group("items"))
        names = [re.sub(r"^the\s+", "", i).strip() for i in items if i.strip()]
        names = [n for n in names if _NAMEISH.search(n) and len(n) >= 2
                 and not _MODELISH.search(n)]
        if len(names) >= 2:
            evaluated.extend(n for n in names if n not in evaluated and n not in proposes)
    return PaperRoles(tuple(proposes), tuple(evaluated))


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence (or sentences) around text[start:end]."""
    begin = max(text.rfind(". ", 0, start), 0)
    stop = text.find(". ", end)
    return text[begin: len(text) if stop < 0 else stop]


def _proposed_names(rest: str, abbrevs: list[Abbreviation]) -> list[str]:
    out: list[str] = []
    for a in abbrevs:
        at = rest.find(f"{a.long} ({a.short}")
        if at >= 0 and not _STOP_BETWEEN.search(_strip_called(rest[:at])):
            out.append(a.long)
    called = _CALLED.search(rest)
    if called:
        name = called.group("name").strip()
        if not any(term_key(name) == term_key(o) for o in out):
            out.append(name)
    first = _NAME_FIRST.match(rest)
    if first and not out:
        out.append(first.group("name"))
    # a name cut at a hyphen is none ("named Disentangling Inter- and Intra-Video
    # relations", "MaxEnt-(V)eritas")
    return [name for name in out if not name.endswith("-")]


def _strip_called(prefix: str) -> str:
    """The words between the verb and the name, minus a trailing "called"/"named"."""
    return re.sub(r"\b(?:called|named|dubbed|termed|coined)\s*$", "", prefix.strip())
