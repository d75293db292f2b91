/**
 * Builds a tiny but real BERT-style feature-extraction model on disk, in the
 * layout transformers.js loads (`config.json`, `tokenizer.json`,
 * `tokenizer_config.json`, `onnx/model.onnx`), so the transformers.js adapter's
 * loading code runs for real without a network or downloaded weights.
 *
 * The ONNX file is a `ModelProto` encoded by hand with protobuf's wire format
 * (field numbers from onnx/onnx.proto). Its graph:
 *
 *   x    = Gather(word_embeddings, input_ids) + Gather(token_type_embeddings, token_type_ids)
 *   ctx  = Σ(x · mask) / Σ(mask)              over the sequence (a stand-in for attention)
 *   last_hidden_state = (x + ctx) · W         W: a fixed orthogonal 8×8 matrix (Hadamard / √8)
 *
 * Words of one intent (seat, meal, baggage, booking, refund) share one embedding
 * direction plus a little deterministic noise, function words are short vectors
 * of their own, and `[PAD]` is a long vector in a direction nothing else uses:
 * if pooling ever counted padded positions, a padded text's vector would move.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { seededRandom as prng } from '@parley/testkit';

export const HIDDEN_SIZE = 8;
export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** Intent groups: every word of a group gets the group's axis. */
const GROUPS: Readonly<Record<string, { axis: number; words: readonly string[] }>> = {
  seat: { axis: 0, words: ['window', 'seat', 'aisle', 'legroom', 'row', 'exit', 'middle', 'sit'] },
  meal: { axis: 1, words: ['vegetarian', 'meal', 'vegan', 'food', 'dinner', 'snack', 'kosher', 'eat'] },
  baggage: { axis: 2, words: ['bag', 'luggage', 'suitcase', 'baggage', 'checked', 'carry'] },
  booking: { axis: 3, words: ['book', 'flight', 'ticket', 'reserve', 'fly', 'trip'] },
  refund: { axis: 4, words: ['cancel', 'refund', 'money', 'back', 'return'] },
};
const FUNCTION_WORDS = ['by', 'the', 'a', 'an', 'i', 'want', 'my', 'please', 'to', 'on', 'for', 'me', 'with', 'near', 'of', 'is', 'need', 'would', 'like', '##s'];
const FUNCTION_AXIS = 5;
const SPECIAL_AXIS = 6;
const PAD_AXIS = 7;

/** The vocabulary in id order: special tokens, intent words, function words and one suffix piece. */
export const VOCAB: readonly string[] = [...SPECIAL_TOKENS, ...Object.values(GROUPS).flatMap((g) => g.words), ...FUNCTION_WORDS];


/** The `[vocab, hidden]` word embedding table, row-major. */
export function wordEmbeddings(): Float32Array {
  const table = new Float32Array(VOCAB.length * HIDDEN_SIZE);
  const rand = prng(20240611);
  const axisOf = new Map<string, number>();
  for (const g of Object.values(GROUPS)) for (const w of g.words) axisOf.set(w, g.axis);
  VOCAB.forEach((token, id) => {
    const row = table.subarray(id * HIDDEN_SIZE, (id + 1) * HIDDEN_SIZE);
    const axis = axisOf.get(token);
    if (axis !== undefined) {
      row[axis] = 1;
      // Noise on the other intent axes: words of a group are alike, not identical.
      for (let k = 0; k < 5; k++) if (k !== axis) row[k] = (rand() - 0.5) * 0.2;
    } else if (token === '[PAD]') {
      row[PAD_AXIS] = 5;
    } else if ((SPECIAL_TOKENS as readonly string[]).includes(token)) {
      row[SPECIAL_AXIS] = 0.2;
    } else {
      row[FUNCTION_AXIS] = 0.3;
    }
  });
  return table;
}

/** Segment embeddings `[2, hidden]`: segment 0 adds nothing, segment 1 a small shift. */
function tokenTypeEmbeddings(): Float32Array {
  const t = new Float32Array(2 * HIDDEN_SIZE);
  t[HIDDEN_SIZE + SPECIAL_AXIS] = 0.1;
  return t;
}

/** The 8×8 Sylvester–Hadamard matrix scaled to be orthogonal: it mixes the axes but keeps cosines. */
export function mixingMatrix(): Float32Array {
  const w = new Float32Array(HIDDEN_SIZE * HIDDEN_SIZE);
  const s = 1 / Math.sqrt(HIDDEN_SIZE);
  for (let i = 0; i < HIDDEN_SIZE; i++) {
    for (let j = 0; j < HIDDEN_SIZE; j++) {
      let bits = i & j;
      let parity = 0;
      while (bits) {
        parity ^= bits & 1;
        bits >>= 1;
      }
      w[i * HIDDEN_SIZE + j] = parity ? -s : s;
    }
  }
  return w;
}

// ---------------------------------------------------------------------------
// ONNX protobuf encoding (onnx.proto field numbers).
// ---------------------------------------------------------------------------

const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;
const ATTR_INT = 2;

type Dim = number | string;

function message(w: BinaryWriter, field: number, body: (w: BinaryWriter) => void): void {
  w.tag(field, WireType.LengthDelimited).fork();
  body(w);
  w.join();
}

/** TensorProto: dims=1, data_type=2, name=8, raw_data=9 (little-endian). */
function tensor(w: BinaryWriter, field: number, name: string, dims: readonly number[], data: Float32Array | BigInt64Array): void {
  message(w, field, (t) => {
    for (const d of dims) t.tag(1, WireType.Varint).int64(d);
    t.tag(2, WireType.Varint).int32(data instanceof Float32Array ? ELEM_FLOAT : ELEM_INT64);
    t.tag(8, WireType.LengthDelimited).string(name);
    // Typed arrays are little-endian on every platform Node runs on (x64, arm64).
    t.tag(9, WireType.LengthDelimited).bytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  });
}

/** ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1, shape=2: {dim=1: {dim_value=1 | dim_param=2}}}}}. */
function valueInfo(w: BinaryWriter, field: number, name: string, elemType: number, shape: readonly Dim[]): void {
  message(w, field, (v) => {
    v.tag(1, WireType.LengthDelimited).string(name);
    message(v, 2, (type) =>
      message(type, 1, (tt) => {
        tt.tag(1, WireType.Varint).int32(elemType);
        message(tt, 2, (shp) => {
          for (const d of shape) {
            message(shp, 1, (dim) => {
              if (typeof d === 'number') dim.tag(1, WireType.Varint).int64(d);
              else dim.tag(2, WireType.LengthDelimited).string(d);
            });
          }
        });
      }),
    );
  });
}

/** NodeProto: input=1, output=2, name=3, op_type=4, attribute=5 (AttributeProto name=1, i=3, type=20). */
function node(w: BinaryWriter, op: string, inputs: readonly string[], output: string, ints: Readonly<Record<string, number>> = {}): void {
  message(w, 1, (n) => {
    for (const i of inputs) n.tag(1, WireType.LengthDelimited).string(i);
    n.tag(2, WireType.LengthDelimited).string(output);
    n.tag(3, WireType.LengthDelimited).string(`${op}_${output}`);
    n.tag(4, WireType.LengthDelimited).string(op);
    for (const [name, value] of Object.entries(ints)) {
      message(n, 5, (a) => {
        a.tag(1, WireType.LengthDelimited).string(name);
        a.tag(3, WireType.Varint).int64(value);
        a.tag(20, WireType.Varint).int32(ATTR_INT);
      });
    }
  });
}

/** The ONNX ModelProto bytes of the tiny encoder (IR version 8, default-domain opset 17). */
export function encodeTinyOnnxModel(): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.Varint).int64(8); // ir_version
  w.tag(2, WireType.LengthDelimited).string('parley-tiny-model'); // producer_name
  message(w, 7, (g) => {
    node(g, 'Gather', ['word_embeddings', 'input_ids'], 'tok');
    node(g, 'Gather', ['token_type_embeddings', 'token_type_ids'], 'typ');
    node(g, 'Add', ['tok', 'typ'], 'x');
    node(g, 'Cast', ['attention_mask'], 'mask_f', { to: ELEM_FLOAT });
    node(g, 'Unsqueeze', ['mask_f', 'last_axis'], 'mask3');
    node(g, 'Mul', ['x', 'mask3'], 'x_masked');
    node(g, 'ReduceSum', ['x_masked', 'seq_axis'], 'x_sum');
    node(g, 'ReduceSum', ['mask3', 'seq_axis'], 'count');
    node(g, 'Div', ['x_sum', 'count'], 'ctx');
    node(g, 'Add', ['x', 'ctx'], 'h');
    node(g, 'MatMul', ['h', 'mix'], 'last_hidden_state');
    g.tag(2, WireType.LengthDelimited).string('tiny_bert');
    tensor(g, 5, 'word_embeddings', [VOCAB.length, HIDDEN_SIZE], wordEmbeddings());
    tensor(g, 5, 'token_type_embeddings', [2, HIDDEN_SIZE], tokenTypeEmbeddings());
    tensor(g, 5, 'mix', [HIDDEN_SIZE, HIDDEN_SIZE], mixingMatrix());
    tensor(g, 5, 'last_axis', [1], BigInt64Array.of(-1n));
    tensor(g, 5, 'seq_axis', [1], BigInt64Array.of(1n));
    for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) valueInfo(g, 11, name, ELEM_INT64, ['batch_size', 'sequence_length']);
    valueInfo(g, 12, 'last_hidden_state', ELEM_FLOAT, ['batch_size', 'sequence_length', HIDDEN_SIZE]);
  });
  // opset_import: OperatorSetIdProto{domain=1 ("" = ai.onnx), version=2}.
  message(w, 8, (o) => {
    o.tag(1, WireType.LengthDelimited).string('');
    o.tag(2, WireType.Varint).int64(17);
  });
  return w.finish();
}

// ---------------------------------------------------------------------------
// Config and tokenizer files.
// ---------------------------------------------------------------------------

function tokenizerJson(): unknown {
  const id = (t: string) => VOCAB.indexOf(t);
  const special = (t: string) => ({ id: t, ids: [id(t)], tokens: [t] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t) => ({ id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((t, i) => [t, i])),
    },
  };
}

export const MODEL_MAX_LENGTH = 32;

function tokenizerConfig(): unknown {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: MODEL_MAX_LENGTH,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
    clean_up_tokenization_spaces: true,
  };
}

function modelConfig(): unknown {
  return {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: HIDDEN_SIZE,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    intermediate_size: 2 * HIDDEN_SIZE,
    hidden_act: 'gelu',
    max_position_embeddings: MODEL_MAX_LENGTH,
    type_vocab_size: 2,
    vocab_size: VOCAB.length,
    pad_token_id: 0,
    layer_norm_eps: 1e-12,
  };
}

export interface TinyModelOptions {
  /** Parent directory; default a fresh one under the OS temp dir. */
  parent?: string;
  /** Directory name inside `parent` (it becomes the embedder id). Default `tiny-bert`. */
  name?: string;
  /** ONNX file names written under `onnx/`. Default `['model.onnx']` (the fp32 file transformers.js loads on CPU). */
  onnxFiles?: readonly string[];
}

/** Writes the tiny model and returns its directory. */
export function buildTinyModel(opts: TinyModelOptions = {}): string {
  const parent = opts.parent ?? mkdtempSync(join(tmpdir(), 'parley-tiny-model-'));
  const dir = join(parent, opts.name ?? 'tiny-bert');
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(modelConfig(), null, 2));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson()));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig(), null, 2));
  const onnx = encodeTinyOnnxModel();
  for (const f of opts.onnxFiles ?? ['model.onnx']) writeFileSync(join(dir, 'onnx', f), onnx);
  return dir;
}
