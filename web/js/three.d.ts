// Types of `softpick/three`, the three.js adapter.

import type { Camera, Face, Intersection, Object3D, Plane, Raycaster, Vector2, Vector3 } from 'three';
import type { PickMethod, WasmSource } from './index.js';

export interface PickerOptions {
  /** Where the worker's or the page's wasm comes from (see init). */
  wasm?: WasmSource;
}

export interface UpdateOptions {
  /** Call root.updateMatrixWorld() first (default true). */
  updateMatrixWorld?: boolean;
  /** Clip as this renderer draws: its clippingPlanes, and with localClippingEnabled the materials' clippingPlanes. */
  renderer?: { clippingPlanes: readonly Plane[]; localClippingEnabled: boolean };
  /** Planes for every object (instead of a renderer's). */
  clippingPlanes?: readonly Plane[];
  /** Whether the materials' clippingPlanes count (instead of a renderer's). */
  localClippingEnabled?: boolean;
}

/** A three.js-shaped intersection (as Raycaster.intersectObjects returns them). */
export interface PickIntersection<T extends Object3D = Object3D> extends Intersection<T> {
  face: Face;
  faceIndex: number;
  /** The barycentric weights of the face's corners a, b, c at the point (always given; older three.js types lack it). */
  barycoord: Vector3;
  /** An InstancedMesh's instance. */
  instanceId?: number;
  /** A BatchedMesh's instance (faceIndex and face a, b, c are then in the batch geometry's numbering, as three.js gives them). */
  batchId?: number;
}

export interface RegionPick {
  /** Covered pixels in the region. */
  pixels: number;
  /** Each object shown, per instance: `instanceId` for an InstancedMesh's, `batchId` for a BatchedMesh's. */
  objects: { object: Object3D; instanceId?: number; batchId?: number }[];
  faces: { object: Object3D; instanceId?: number; batchId?: number; faceIndex: number }[];
}

export interface RayHits {
  /** Per ray the object hit, or null. */
  object: (Object3D | null)[];
  /** An InstancedMesh's instance (0 for other objects). */
  instanceId: Uint32Array;
  /** A BatchedMesh's instance (−1 for other objects). */
  batchId: Int32Array;
  faceIndex: Uint32Array;
  /** Infinity for none. */
  distance: Float32Array;
}

export interface RaysOptions {
  near?: number;
  far?: number;
  /** Only these objects (and, with `recursive`, their descendants). */
  objects?: Object3D[];
  recursive?: boolean;
}

export type LassoPoints = Float32Array | number[] | [number, number][] | Vector2[];

/** softpick's picks of a three.js scene, on the main thread. */
export class Picker {
  /** Loads the wasm module (once) and makes a picker. */
  static create(opts?: PickerOptions): Promise<Picker>;
  /**
   * Mirrors `root`: meshes, instanced, skinned and morphed meshes as posed now, batched meshes (three.js releases whose
   * BatchedMesh has getGeometryIdAt and getGeometryRangeAt), visibility. Throws for what it cannot mirror.
   * Points, Lines and Sprites are not mirrored: softpick's picks never return them (three.js's Raycaster would); with
   * install(), raycaster.intersectObjects still tests them with three.js's own code.
   */
  update(root: Object3D, opts?: UpdateOptions): this;
  /**
   * As raycaster.intersectObjects(objects, recursive): three.js intersections, nearest first, on the pose of the last update
   * (the raycaster's near, far and layers honoured; with three-mesh-bvh's `raycaster.firstHitOnly = true`, only the nearest).
   */
  intersectObjects<T extends Object3D = Object3D>(raycaster: Raycaster, objects: Object3D[], recursive?: boolean, intersects?: PickIntersection<T>[]): PickIntersection<T>[];
  /** As raycaster.intersectObject(object, recursive). */
  intersectObject<T extends Object3D = Object3D>(raycaster: Raycaster, object: Object3D, recursive?: boolean, intersects?: PickIntersection<T>[]): PickIntersection<T>[];
  /** The nearest hits of many world rays (x, y, z per ray); throws, naming the ray, when one is not finite. */
  intersectRays(origins: ArrayLike<number>, directions: ArrayLike<number>, opts?: RaysOptions): RayHits;
  /**
   * What is under pixel (x, y) of camera's width × height view: x, y in pixels from the top left (the pixel containing the
   * point; its centre is at +0.5), as a three.js intersection, or null. The ID buffer is rendered at a view's first pick and
   * reused until the scene or the camera changes. `method`: "buffer" (default), "direct" or "ray".
   */
  pickPixel(camera: Camera, x: number, y: number, width: number, height: number, opts?: { method?: PickMethod }): PickIntersection | null;
  /** The objects and faces in a pixel rectangle of the view, corners included (`through`: hidden ones too). */
  pickRect(camera: Camera, x0: number, y0: number, x1: number, y1: number, width: number, height: number, opts?: { through?: boolean }): RegionPick;
  /** The objects and faces inside a lasso (pixels from the top left), by the even-odd rule on pixel centres (`through`: hidden ones too). */
  pickLasso(camera: Camera, points: LassoPoints, width: number, height: number, opts?: { through?: boolean }): RegionPick;
  /** Per pixel of the view (rows from the top) the object under it, or null. */
  objectsAt(camera: Camera, width: number, height: number): (Object3D | null)[];
  /** Per pixel of the view (rows from the top) a number + 1 of the triangle under it (one per triangle of each instance, until the next update), 0 for none. */
  triangleIdsAt(camera: Camera, width: number, height: number): Uint32Array;
  /** three.js's own raycasts of mirrored meshes go through softpick. */
  install(): this;
  /** Restores three.js's own raycasts. */
  uninstall(): this;
  /** One object's softpick hits into `intersects`; false when softpick does not mirror it. */
  raycastInto(object: Object3D, raycaster: Raycaster, intersects: Intersection[]): boolean;
  /** Frees the wasm memory (and uninstalls); later calls throw. */
  free(): void;
}

/** A Picker whose wasm scene lives in a Web Worker: the same methods, returning promises. */
export class PickerWorker {
  /** Starts the worker (a module Worker of the package's js/worker.js, or `workerURL`) and loads the wasm in it; browsers only. */
  static create(opts?: PickerOptions & { workerURL?: string | URL }): Promise<PickerWorker>;
  update(root: Object3D, opts?: UpdateOptions): Promise<this>;
  intersectObjects<T extends Object3D = Object3D>(raycaster: Raycaster, objects: Object3D[], recursive?: boolean, intersects?: PickIntersection<T>[]): Promise<PickIntersection<T>[]>;
  intersectObject<T extends Object3D = Object3D>(raycaster: Raycaster, object: Object3D, recursive?: boolean, intersects?: PickIntersection<T>[]): Promise<PickIntersection<T>[]>;
  intersectRays(origins: ArrayLike<number>, directions: ArrayLike<number>, opts?: RaysOptions): Promise<RayHits>;
  pickPixel(camera: Camera, x: number, y: number, width: number, height: number, opts?: { method?: PickMethod }): Promise<PickIntersection | null>;
  pickRect(camera: Camera, x0: number, y0: number, x1: number, y1: number, width: number, height: number, opts?: { through?: boolean }): Promise<RegionPick>;
  pickLasso(camera: Camera, points: LassoPoints, width: number, height: number, opts?: { through?: boolean }): Promise<RegionPick>;
  objectsAt(camera: Camera, width: number, height: number): Promise<(Object3D | null)[]>;
  triangleIdsAt(camera: Camera, width: number, height: number): Promise<Uint32Array>;
  /** Stops the worker; pending and later calls reject. */
  terminate(): void;
  free(): void;
}
