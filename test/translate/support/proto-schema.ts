/**
 * The two vendored A2A protos (docs/proto/a2a-v1.0.0.proto, package `lf.a2a.v1`, and
 * docs/proto/a2a-v0.3.0.proto, package `a2a.v1`) compiled at run time, to check JSON against them
 * the way a ProtoJSON peer reads it: `@bufbuild/protobuf`'s `fromJson`, which rejects unknown
 * members, values of the wrong type, enum names the proto does not define, two members of one
 * oneof, bad base64 and bad timestamps.
 *
 * protobufjs parses the .proto text (imports are not followed: the only types the A2A files use
 * from their imports are google.protobuf Struct, Value, Timestamp and Empty; the google.api ones
 * are options). Its reflection is turned into a FileDescriptorProto by hand, with the well-known
 * types taken from `@bufbuild/protobuf/wkt`, and handed to `createFileRegistry`. Custom options
 * (`google.api.http`, `field_behavior`) are dropped: they do not change the JSON.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import {
  create,
  createFileRegistry,
  fromJson,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
} from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_empty,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
} from '@bufbuild/protobuf/wkt';

const PROTO_DIR = fileURLToPath(new URL('../../../docs/proto/', import.meta.url));

const SCALARS: Readonly<Record<string, FieldDescriptorProto_Type>> = {
  double: FieldDescriptorProto_Type.DOUBLE,
  float: FieldDescriptorProto_Type.FLOAT,
  int64: FieldDescriptorProto_Type.INT64,
  uint64: FieldDescriptorProto_Type.UINT64,
  int32: FieldDescriptorProto_Type.INT32,
  fixed64: FieldDescriptorProto_Type.FIXED64,
  fixed32: FieldDescriptorProto_Type.FIXED32,
  bool: FieldDescriptorProto_Type.BOOL,
  string: FieldDescriptorProto_Type.STRING,
  bytes: FieldDescriptorProto_Type.BYTES,
  uint32: FieldDescriptorProto_Type.UINT32,
  sfixed32: FieldDescriptorProto_Type.SFIXED32,
  sfixed64: FieldDescriptorProto_Type.SFIXED64,
  sint32: FieldDescriptorProto_Type.SINT32,
  sint64: FieldDescriptorProto_Type.SINT64,
};

const WKT_FILES = [file_google_protobuf_struct, file_google_protobuf_timestamp, file_google_protobuf_empty];

/** A proto file's types, by their name in the package (`Task`, `StreamResponse`). */
export interface ProtoSchema {
  readonly pkg: string;
  readonly registry: FileRegistry;
  message(name: string): DescMessage;
  /**
   * `json` read as ProtoJSON of message `name`, strictly: throws (with the reason) when a peer
   * speaking this proto would reject it.
   */
  check(name: string, json: unknown): void;
}

export function loadProto(file: 'a2a-v1.0.0.proto' | 'a2a-v0.3.0.proto'): ProtoSchema {
  const text = readFileSync(`${PROTO_DIR}${file}`, 'utf8');
  const root = new protobuf.Root();
  for (const wkt of ['struct', 'timestamp', 'empty']) {
    root.addJSON(protobuf.common.get(`google/protobuf/${wkt}.proto`)!.nested!);
  }
  const parsed = protobuf.parse(text, root, { keepCase: true, alternateCommentMode: true });
  root.resolveAll();
  const pkg = parsed.package!;
  const ns = root.lookup(pkg) as protobuf.Namespace;

  const fileProto = create(FileDescriptorProtoSchema, {
    name: file,
    package: pkg,
    syntax: 'proto3',
    dependency: WKT_FILES.map((f) => f.proto.name),
    messageType: ns.nestedArray.filter((n) => n instanceof protobuf.Type).map((t) => messageProto(t)),
    enumType: ns.nestedArray.filter((n) => n instanceof protobuf.Enum).map((e) => enumProto(e)),
  });
  const registry = createFileRegistry(fileProto, (name) => WKT_FILES.find((f) => f.proto.name === name));

  const message = (name: string): DescMessage => {
    const desc = registry.getMessage(name.includes('.') ? name : `${pkg}.${name}`);
    if (desc === undefined) throw new Error(`${file}: no message ${name}`);
    return desc;
  };
  return {
    pkg,
    registry,
    message,
    check(name, json) {
      fromJson(message(name), json as JsonValue, { ignoreUnknownFields: false, registry });
    },
  };
}

function messageProto(type: protobuf.Type): DescriptorProto {
  // proto3 `optional` makes a synthetic oneof `_name`: the JSON does not change, so it is left out.
  const oneofs = type.oneofsArray.filter(
    (o) => !(o.fieldsArray.length === 1 && o.name === `_${o.fieldsArray[0]!.name}`),
  );
  const nested: DescriptorProto[] = type.nestedArray
    .filter((n) => n instanceof protobuf.Type)
    .map((t) => messageProto(t));
  const fields: FieldDescriptorProto[] = [];
  for (const field of type.fieldsArray) {
    const oneofIndex = field.partOf ? oneofs.indexOf(field.partOf) : -1;
    const jsonName = (field.options?.['json_name'] as string | undefined) ?? camel(field.name);
    if (field instanceof protobuf.MapField) {
      const entry = `${field.name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Entry`;
      nested.push(
        create(DescriptorProtoSchema, {
          name: entry,
          options: { mapEntry: true },
          field: [
            { ...fieldProto('key', 1, field.keyType, null), jsonName: 'key' },
            { ...fieldProto('value', 2, field.type, field.resolvedType), jsonName: 'value' },
          ],
        }),
      );
      fields.push(
        create(FieldDescriptorProtoSchema, {
          name: field.name,
          number: field.id,
          label: FieldDescriptorProto_Label.REPEATED,
          type: FieldDescriptorProto_Type.MESSAGE,
          typeName: `${type.fullName}.${entry}`,
          jsonName,
        }),
      );
      continue;
    }
    const f = fieldProto(field.name, field.id, field.type, field.resolvedType);
    if (field.repeated) f.label = FieldDescriptorProto_Label.REPEATED;
    if (oneofIndex >= 0) f.oneofIndex = oneofIndex;
    f.jsonName = jsonName;
    fields.push(f);
  }
  return create(DescriptorProtoSchema, {
    name: type.name,
    field: fields,
    nestedType: nested,
    enumType: type.nestedArray.filter((n) => n instanceof protobuf.Enum).map((e) => enumProto(e)),
    oneofDecl: oneofs.map((o) => ({ name: o.name })),
  });
}

function fieldProto(
  name: string,
  number: number,
  typeName: string,
  resolved: protobuf.Type | protobuf.Enum | null,
): FieldDescriptorProto {
  const scalar = SCALARS[typeName];
  if (scalar !== undefined) {
    return create(FieldDescriptorProtoSchema, {
      name,
      number,
      label: FieldDescriptorProto_Label.OPTIONAL,
      type: scalar,
    });
  }
  if (resolved === null) throw new Error(`unresolved type ${typeName} of field ${name}`);
  return create(FieldDescriptorProtoSchema, {
    name,
    number,
    label: FieldDescriptorProto_Label.OPTIONAL,
    type: resolved instanceof protobuf.Enum ? FieldDescriptorProto_Type.ENUM : FieldDescriptorProto_Type.MESSAGE,
    typeName: resolved.fullName,
  });
}

/** protoc's default json_name: each `_x` becomes `X` (it always fills json_name in; so must this). */
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function enumProto(e: protobuf.Enum): EnumDescriptorProto {
  return create(EnumDescriptorProtoSchema, {
    name: e.name,
    value: Object.entries(e.values).map(([name, number]) => ({ name, number })),
  });
}
