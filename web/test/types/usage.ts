// Compiled (not run) by the types test: the package's .d.ts files describe
// what the README and the tests use, under `strict`.
import { init, Scene, Camera, Frame, analyzeRules, type Hit, type FirstHits } from 'softpick';
import { Picker, PickerWorker, type PickIntersection, type RegionPick, type RayHits } from 'softpick/three';
import { Mesh, Object3D, PerspectiveCamera, Plane, Raycaster, Vector3 } from 'three';

export async function core(): Promise<number> {
  await init();
  const scene = new Scene();
  const g: number = scene.addGeometry(new Float32Array(9), new Uint16Array([0, 1, 2]));
  const o: number = scene.addObject(g, new Float64Array(16), { side: 'double' });
  scene.pose(o, { bones: new Float32Array(16), influences: [0.5] });
  scene.setClipPlanes([[0, -1, 0, 1]]);
  scene.setObjectClipPlanes(o, new Float32Array([1, 0, 0, 0]), [1]);
  const hit: Hit | null = scene.raycast([0, 0, 5], [0, 0, -1], { near: 0, far: 10 });
  const batch: FirstHits = scene.firstHits(new Float32Array(3), new Float32Array(3));
  const cam = Camera.lookAt({ eye: [0, 0, 5], target: [0, 0, 0], fov: 45, near: 0.1, far: 100, width: 64, height: 64 });
  const frame: Frame = scene.render(cam, { rule: 'top-left' });
  const ids: Uint32Array = frame.ids();
  const sel = frame.pickLasso([[0, 0], [10, 0], [10, 10]]);
  const rules = analyzeRules(scene, cam);
  frame.free();
  return (hit?.distance ?? 0) + batch.distance[0] + ids.length + sel.pixels + rules[0].gaps;
}

export async function adapter(root: Object3D, camera: PerspectiveCamera): Promise<number> {
  const picker = await Picker.create();
  picker.update(root);
  const cut = new Plane(new Vector3(0, -1, 0), 1);
  picker.update(root, { renderer: { clippingPlanes: [cut], localClippingEnabled: true } });
  picker.update(root, { clippingPlanes: [cut], localClippingEnabled: false, updateMatrixWorld: false });
  // (a renderer's planes are readonly in some three.js types, e.g. 0.160's WebGLRenderer)
  const planes: readonly Plane[] = [cut];
  picker.update(root, { renderer: { clippingPlanes: planes, localClippingEnabled: false } });
  const rc = new Raycaster();
  const hits: PickIntersection<Mesh>[] = picker.intersectObjects<Mesh>(rc, root.children, true);
  const weights: Vector3 = hits[0].barycoord;
  const px = picker.pickPixel(camera, 10, 10, 640, 480);
  const box: RegionPick = picker.pickRect(camera, 0, 0, 10, 10, 640, 480);
  // a BatchedMesh's instance, in hits, selections and ray batches
  const batchIds: (number | undefined)[] = [hits[0].batchId, px?.batchId, box.objects[0].batchId, box.faces[0].batchId];
  const rays: RayHits = picker.intersectRays([0, 0, 5], [0, 0, -1]);
  const rayBatch: Int32Array = rays.batchId;
  const tris: Uint32Array = picker.triangleIdsAt(camera, 640, 480);
  const worker = await PickerWorker.create();
  await worker.update(root);
  const w = await worker.intersectObject(rc, root);
  const wtris: Uint32Array = await worker.triangleIdsAt(camera, 640, 480);
  worker.terminate();
  picker.install().uninstall().free();
  return batchIds.length + rayBatch[0] + hits.length + weights.x + (px?.faceIndex ?? 0) + box.objects.length + w.length + tris[0] + wtris[0];
}
