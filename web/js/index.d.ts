// Types of `softpick`, the JavaScript API over the WebAssembly core.

/** What wasm-bindgen's init accepts: a URL, a Response, the bytes or a compiled module. */
export type WasmSource = string | URL | Request | Response | BufferSource | WebAssembly.Module;

/** Loads the WebAssembly module once (by default the .wasm file beside the package). */
export function init(source?: WasmSource | Promise<WasmSource>): Promise<void>;

/** The version of the softpick core inside. */
export function version(): string;

export type Side = 'front' | 'back' | 'double' | 0 | 1 | 2;
export type FillRule = 'top-left' | '>0' | '>=0' | '>=0 area';
export type PickMethod = 'buffer' | 'direct' | 'ray';
export type Matrix = ArrayLike<number>;
export type Vec3 = [number, number, number];

/** A hit of a ray or a pixel pick. */
export interface Hit {
  /** The object's id (`Scene.addObject`; for a loaded scene, its instance). */
  object: number;
  /** The instance of an instanced object (else 0). */
  instance: number;
  /** The primitive (range) of the geometry. */
  primitive: number;
  /** The index position of the triangle's first corner (three.js's `j`). */
  index: number;
  /** ⌊index / 3⌋: three.js's `faceIndex`. */
  faceIndex: number;
  /** Along the ray, in units of its direction's length (pixel picks: from the camera). */
  distance: number;
  /** The world point. */
  point: Vec3;
  /** Barycentric weights of the corners a, b, c. */
  barycoord: Vec3;
  /** The unit normal of the triangle (a, b, c), in the object's space. */
  normal: Vec3;
  /** Whether the ray saw the triangle's front. */
  frontFace: boolean;
}

export interface RayOptions {
  near?: number;
  far?: number;
  /** Only these objects are tested (ids, or a byte per object id). */
  objects?: Iterable<number> | Uint8Array;
}

/** The nearest hits of a batch of rays, one entry per ray. */
export interface FirstHits {
  /** The object hit, −1 for none. */
  object: Int32Array;
  instance: Uint32Array;
  index: Uint32Array;
  faceIndex: Uint32Array;
  /** Infinity for none. */
  distance: Float32Array;
}

export interface Selection {
  /** Covered pixels in the region. */
  pixels: number;
  objects: { object: number; instance: number }[];
  triangles: { object: number; instance: number; index: number; faceIndex: number }[];
}

export interface SweepResult {
  /** The world displacement applied. */
  allowed: Vec3;
  blocked: boolean;
  /** The other object of the contact, −1 for none. */
  other: number;
  hit: Hit | null;
}

export interface Pose {
  /** 16 numbers per bone, column-major (three.js's skeleton.boneMatrices). */
  bones?: ArrayLike<number>;
  bindMatrix?: Matrix;
  bindMatrixInverse?: Matrix;
  /** The morph target influences. */
  influences?: ArrayLike<number>;
}

/** A scene: geometries and the objects placing them, or a scene softpick made whole. Free it when done (then every call throws). */
export class Scene {
  constructor();
  /** The built-in pick-test scene (362 triangles). */
  static builtin(): Scene;
  /** A model file's scene: OBJ, GLB, or glTF with data-URI buffers (the format by `name`'s extension, else by the bytes). */
  static load(bytes: Uint8Array | ArrayBuffer, name?: string): Scene;
  /** Adds a geometry; its id. `ranges`: pairs of index positions [start, end) of its primitives. */
  addGeometry(positions: Float32Array, index?: Uint16Array | Uint32Array | null, ranges?: ArrayLike<number> | null): number;
  setGeometryPositions(geometry: number, positions: Float32Array): void;
  /** Four joint indices and four weights per vertex. */
  setSkin(geometry: number, joints: ArrayLike<number>, weights: Float32Array): void;
  /** Morph targets, x, y, z per vertex each; `relative` (default true): deltas (three.js's morphTargetsRelative, whose default is false), else positions. */
  setMorphTargets(geometry: number, targets: Float32Array[], relative?: boolean): void;
  removeGeometry(geometry: number): void;
  /** Adds an object; its id. `instances`: 16 numbers per instance, each after `matrix`. */
  addObject(geometry: number, matrix: Matrix, opts?: { instances?: ArrayLike<number>; side?: Side | Side[] }): number;
  setMatrix(object: number, matrix: Matrix, instances?: ArrayLike<number>): void;
  setSide(object: number, side: Side | Side[]): void;
  setVisible(object: number, visible: boolean): void;
  removeObject(object: number): void;
  /** Poses an object as three.js draws it (morphs, then skinning); its BVHs are refit. */
  pose(object: number, pose?: Pose): void;
  /** User clip planes for every object: [nx, ny, nz, d] each (keeps n · p + d >= 0); every render and ray query honours them. */
  setClipPlanes(planes: [number, number, number, number][] | Float32Array): void;
  /** An object's own clip planes; `counts`: planes per primitive (none: all for every primitive). */
  setObjectClipPlanes(object: number, planes: [number, number, number, number][] | Float32Array, counts?: ArrayLike<number> | null): void;
  /** A loaded scene's animations. */
  readonly animations: string[];
  duration(animation: number): number;
  /** Poses a loaded scene at `time` seconds of an animation (index or name). */
  poseAnimation(time: number, animation?: number | string): void;
  readonly objectCount: number;
  readonly triangleCount: number;
  readonly bounds: { min: Vec3; max: Vec3 };
  /**
   * The nearest hit of a ray, or null. Any finite direction (not only unit ones; a zero direction hits nothing);
   * throws when the origin or direction is not finite.
   */
  raycast(origin: ArrayLike<number>, direction: ArrayLike<number>, opts?: RayOptions): Hit | null;
  /** Every hit of a ray, nearest first (rays as `raycast` takes them). */
  raycastAll(origin: ArrayLike<number>, direction: ArrayLike<number>, opts?: RayOptions): Hit[];
  /** The nearest hits of many rays (x, y, z per ray); throws, naming the ray, when one is not finite. */
  firstHits(origins: ArrayLike<number>, directions: ArrayLike<number>, opts?: RayOptions): FirstHits;
  /** Moves an object, stopping `skin` units before it would touch another (softpick's sweep_move). */
  sweepMove(object: number, displacement: ArrayLike<number>, skin?: number): SweepResult;
  render(camera: Camera, opts?: RenderOptions): Frame;
  free(): void;
}

export interface RenderOptions {
  rule?: FillRule;
  /** Also fill the color buffer (flat shading). */
  color?: boolean;
}

/**
 * A softpick camera. Free it when done. Its width and height are whole
 * numbers of pixels, at most 16384 each and 2^25 (33,554,432) together
 * (the frame's buffers must fit in the module's memory); else it throws.
 */
export class Camera {
  /** From three.js's camera.matrixWorldInverse and camera.projectionMatrix, for a width × height view. */
  static fromMatrices(view: Matrix, projection: Matrix, width: number, height: number): Camera;
  /** softpick's automatic framing of a scene. */
  static auto(scene: Scene, width: number, height: number): Camera;
  /** `fov` (vertical, degrees: perspective) or `orthoHeight` (world units: orthographic); one of them is needed. */
  static lookAt(opts: {
    eye: ArrayLike<number>; target: ArrayLike<number>; up?: ArrayLike<number>;
    fov?: number; orthoHeight?: number; near: number; far: number; width: number; height: number;
  }): Camera;
  readonly width: number;
  readonly height: number;
  readonly eye: Vec3;
  readonly matrices: { view: Float64Array; projection: Float64Array };
  /** The world ray through window point (x, y): pixels, y down, pixel centres at +0.5. */
  rayThrough(x: number, y: number): { origin: Vec3; direction: Vec3 };
  free(): void;
}

/** The depth and ID buffers of a scene seen from a camera. Free it when done. */
export class Frame {
  constructor();
  render(scene: Scene, camera: Camera, opts?: RenderOptions): this;
  readonly width: number;
  readonly height: number;
  /** Per pixel (rows from the top) the global triangle + 1, 0 for background. */
  ids(): Uint32Array;
  /** Window depth, 0 near to 1 far. */
  depth(): Float32Array;
  /** 0xAARRGGBB per pixel (after a render with `color`). */
  color(): Uint32Array;
  /** Per pixel the object id under it, −1 for none. */
  objectIds(): Int32Array;
  describe(global: number): { object: number; instance: number; primitive: number; index: number; faceIndex: number } | null;
  pick(x: number, y: number, method?: PickMethod): Hit | null;
  /** Every pixel's pick by a method, as the ID buffer holds them (global triangle + 1, 0 for none). */
  pickMap(method?: PickMethod): Uint32Array;
  pickRect(x0: number, y0: number, x1: number, y1: number, opts?: { through?: boolean }): Selection;
  pickLasso(points: ArrayLike<number> | [number, number][], opts?: { through?: boolean }): Selection;
  free(): void;
}

export interface RuleReport {
  rule: FillRule;
  covered: number;
  gaps: number;
  double: number;
  falseClaims: number;
}

/** The fill-rule experiment of `softpick rules`. */
export function analyzeRules(scene: Scene, camera: Camera): RuleReport[];

/** A packed hit (the wasm layer's form) as a Hit. */
export function unpackHit(packed: ArrayLike<number>, k?: number): Hit;
