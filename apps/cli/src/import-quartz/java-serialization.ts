/**
 * A reader of Java's object serialization stream (the Object Serialization Stream Protocol), as
 * far as a Quartz JDBC JobStore needs it: Quartz writes a JobDataMap and a Calendar as serialized
 * Java objects in BLOB columns. It decodes the stream into plain values and never runs anything
 * (there is no class to load: an object is its class name and its fields).
 *
 * Not read: externalizable objects written without block data (protocol version 1, before
 * Java 1.2) and proxies — a stream that holds one is refused with a JavaStreamError.
 */
import { JavaStreamError } from './java-stream-error';
import { decodeModifiedUtf8 } from './modified-utf8';

/** A decoded object: its class, its fields by class (a field name may repeat in a subclass), and what custom writeObject methods wrote. */
export interface JavaObject {
  kind: 'object';
  className: string;
  /** Field values of every class of the hierarchy, superclass first; a subclass's field wins a clash. */
  fields: Record<string, JavaValue>;
  /** What each class's writeObject wrote after its fields: block data (as bytes) and objects, in order; keyed by class name. */
  annotations: Record<string, JavaValue[]>;
}

export interface JavaArray {
  kind: 'array';
  className: string;
  items: JavaValue[];
}

export interface JavaEnum {
  kind: 'enum';
  className: string;
  constant: string;
}

export type JavaValue = null | string | number | bigint | boolean | Buffer | JavaObject | JavaArray | JavaEnum | ClassDesc;

interface ClassDesc {
  kind: 'class';
  name: string;
  flags: number;
  fields: Array<{ type: string; name: string }>;
  superClass: ClassDesc | null;
}

const TC = { NULL: 0x70, REFERENCE: 0x71, CLASSDESC: 0x72, OBJECT: 0x73, STRING: 0x74, ARRAY: 0x75, CLASS: 0x76, BLOCKDATA: 0x77, ENDBLOCKDATA: 0x78, RESET: 0x79, BLOCKDATALONG: 0x7a, LONGSTRING: 0x7c, ENUM: 0x7e } as const;
const SC_WRITE_METHOD = 0x01;
const SC_BLOCK_DATA = 0x08;
const SC_EXTERNALIZABLE = 0x04;

/** True for a decoded object (not null, a string, a number, block data, an array, an enum or a class). */
export function isJavaObject(value: JavaValue | undefined): value is JavaObject {
  return typeof value === 'object' && value !== null && !Buffer.isBuffer(value) && value.kind === 'object';
}

/** The first object of a serialized stream (`ObjectOutputStream.writeObject`'s bytes). */
export function readJavaObject(bytes: Buffer): JavaValue {
  if (bytes.length < 4 || bytes.readUInt16BE(0) !== 0xaced || bytes.readUInt16BE(2) !== 5) throw new JavaStreamError('not a Java serialization stream (no AC ED 00 05 header)');
  return new StreamReader(bytes).content() as JavaValue;
}

class StreamReader {
  private offset = 4;
  private readonly handles: JavaValue[] = [];

  constructor(private readonly bytes: Buffer) {}

  /** One content item: an object, or block data (a Buffer). */
  content(): JavaValue {
    const tc = this.u1();
    switch (tc) {
      case TC.NULL:
        return null;
      case TC.REFERENCE: {
        const handle = this.bytes.readInt32BE(this.take(4)) - 0x7e0000;
        if (handle < 0 || handle >= this.handles.length) throw new JavaStreamError(`reference to unknown handle ${handle}`);
        return this.handles[handle];
      }
      case TC.STRING:
        return this.keep(this.utf(this.u2()));
      case TC.LONGSTRING:
        return this.keep(this.utf(Number(this.bytes.readBigUInt64BE(this.take(8)))));
      case TC.CLASSDESC:
        this.offset--;
        return this.classDesc();
      case TC.CLASS:
        return this.keep(this.classDesc());
      case TC.OBJECT:
        return this.object();
      case TC.ARRAY:
        return this.array();
      case TC.ENUM: {
        const desc = this.classDesc()!;
        const value: JavaEnum = { kind: 'enum', className: desc.name, constant: '' };
        this.keep(value);
        value.constant = this.content() as string;
        return value;
      }
      case TC.BLOCKDATA:
        return this.bytes.subarray(this.take(this.u1()), this.offset);
      case TC.BLOCKDATALONG:
        return this.bytes.subarray(this.take(this.bytes.readInt32BE(this.take(4))), this.offset);
      case TC.RESET:
        this.handles.length = 0;
        return this.content();
      default:
        throw new JavaStreamError(`unsupported type code 0x${tc.toString(16)} at byte ${this.offset - 1}`);
    }
  }

  private classDesc(): ClassDesc | null {
    const tc = this.u1();
    if (tc === TC.NULL) return null;
    if (tc === TC.REFERENCE) {
      this.offset--;
      return this.content() as ClassDesc;
    }
    if (tc !== TC.CLASSDESC) throw new JavaStreamError(`expected a class description at byte ${this.offset - 1} (type code 0x${tc.toString(16)})`);
    const name = this.utf(this.u2());
    this.take(8); // serialVersionUID
    const desc: ClassDesc = { kind: 'class', name, flags: 0, fields: [], superClass: null };
    this.keep(desc);
    desc.flags = this.u1();
    const count = this.u2();
    for (let i = 0; i < count; i++) {
      const type = String.fromCharCode(this.u1());
      const fieldName = this.utf(this.u2());
      if (type === 'L' || type === '[') this.content(); // the field's class name
      desc.fields.push({ type, name: fieldName });
    }
    this.annotation(); // class annotation
    desc.superClass = this.classDesc();
    return desc;
  }

  private object(): JavaObject {
    const desc = this.classDesc();
    if (desc === null) throw new JavaStreamError('object without a class');
    const value: JavaObject = { kind: 'object', className: desc.name, fields: {}, annotations: {} };
    this.keep(value);
    const chain: ClassDesc[] = [];
    for (let d: ClassDesc | null = desc; d !== null; d = d.superClass) chain.unshift(d);
    for (const d of chain) {
      if (d.flags & SC_EXTERNALIZABLE) {
        if (!(d.flags & SC_BLOCK_DATA)) throw new JavaStreamError(`${d.name} is externalizable without block data (protocol version 1)`);
        value.annotations[d.name] = this.annotation();
        continue;
      }
      for (const field of d.fields) value.fields[field.name] = this.fieldValue(field.type);
      if (d.flags & SC_WRITE_METHOD) value.annotations[d.name] = this.annotation();
    }
    return value;
  }

  private array(): JavaArray {
    const desc = this.classDesc();
    if (desc === null) throw new JavaStreamError('array without a class');
    const value: JavaArray = { kind: 'array', className: desc.name, items: [] };
    this.keep(value);
    const size = this.bytes.readInt32BE(this.take(4));
    const elementType = desc.name.charAt(1);
    for (let i = 0; i < size; i++) value.items.push(this.fieldValue(elementType));
    return value;
  }

  /** Content items up to TC_ENDBLOCKDATA. */
  private annotation(): JavaValue[] {
    const items: JavaValue[] = [];
    while (this.bytes[this.offset] !== TC.ENDBLOCKDATA) {
      if (this.offset >= this.bytes.length) throw new JavaStreamError('stream ends inside an object');
      items.push(this.content());
    }
    this.offset++;
    return items;
  }

  private fieldValue(type: string): JavaValue {
    const b = this.bytes;
    switch (type) {
      case 'B':
        return b.readInt8(this.take(1));
      case 'C':
        return String.fromCharCode(b.readUInt16BE(this.take(2)));
      case 'D':
        return b.readDoubleBE(this.take(8));
      case 'F':
        return b.readFloatBE(this.take(4));
      case 'I':
        return b.readInt32BE(this.take(4));
      case 'J':
        return b.readBigInt64BE(this.take(8));
      case 'S':
        return b.readInt16BE(this.take(2));
      case 'Z':
        return b.readUInt8(this.take(1)) !== 0;
      case 'L':
      case '[':
        return this.content();
      default:
        throw new JavaStreamError(`unknown field type "${type}"`);
    }
  }

  private keep<T extends JavaValue>(value: T): T {
    this.handles.push(value);
    return value;
  }

  /** Moves past `n` bytes; answers where they start. */
  private take(n: number): number {
    const at = this.offset;
    if (at + n > this.bytes.length) throw new JavaStreamError(`stream ends at byte ${this.bytes.length}, inside a value`);
    this.offset += n;
    return at;
  }

  private u1(): number {
    return this.bytes[this.take(1)];
  }

  private u2(): number {
    return this.bytes.readUInt16BE(this.take(2));
  }

  /** `length` bytes of Java's modified UTF-8 (a string of TC_STRING or TC_LONGSTRING, a class or field name). */
  private utf(length: number): string {
    const at = this.take(length);
    return decodeModifiedUtf8(this.bytes, at, at + length);
  }
}
