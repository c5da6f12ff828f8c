# Types of the compiled module (python/src/*.rs). Checked against it by
# `stubtest` and used by `mypy --strict` on python/tests
# (python/tests/test_typing.py); the docstrings are the Rust side's.

import os
from typing import Any, List, Literal, Optional, Tuple, Union, final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .types import (
    CullMode,
    FillRule,
    Hit,
    Intersections,
    Layers,
    LoopMode,
    PickMethod,
    RayHits,
    RenderMethod,
    SelectMode,
    Selection,
)

_Path = Union[str, os.PathLike[str]]

__all__ = [
    "Camera",
    "Error",
    "Frame",
    "INVALID_ID",
    "MAX_FRAME_SIDE",
    "Scene",
    "builtin_scene",
    "load",
]

INVALID_ID: int
MAX_FRAME_SIDE: int

class Error(Exception): ...

def load(path: _Path, scene: Union[int, str, None] = None) -> Scene: ...
def builtin_scene() -> Scene: ...

@final
class Scene:
    def __init__(self) -> None: ...
    def add_mesh(
        self,
        vertices: ArrayLike,
        triangles: ArrayLike,
        name: Optional[str] = None,
        transform: Optional[ArrayLike] = None,
        parent: Optional[int] = None,
    ) -> int: ...
    def add_node(
        self,
        name: Optional[str] = None,
        transform: Optional[ArrayLike] = None,
        parent: Optional[int] = None,
    ) -> int: ...
    def set_transform(self, node: int, transform: ArrayLike) -> None: ...
    def set_vertices(
        self, mesh: int, vertices: ArrayLike
    ) -> Literal["refit", "rebuilt", "not built"]: ...
    def pose(
        self,
        time: float,
        animation: Union[int, str, None] = None,
        loop: LoopMode = "once",
    ) -> None:
        """Poses the scene at `time` seconds of an animation (index or name;
        default the first): node channels, morph weights and skins, with the
        deformed meshes' BVHs refit. `loop` says what a time past the clip's
        end shows: "once" clamps to the last key, "repeat" wraps, "pingpong"
        mirrors (three.js's and Cesium's modes). A scene without animations
        keeps its shape. Frames rendered before are stale. Returns None."""

    @property
    def animations(self) -> List[str]: ...
    def build_bvhs(self) -> None: ...
    @property
    def mesh_count(self) -> int: ...
    @property
    def node_count(self) -> int: ...
    @property
    def triangle_count(self) -> int: ...
    @property
    def mesh_names(self) -> List[str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def triangle_offsets(self) -> NDArray[np.uint32]: ...
    @property
    def bounds(self) -> List[List[float]]: ...
    def mesh_node(self, mesh: int) -> int: ...
    def mesh_instance(self, mesh: int) -> int: ...
    def mesh_vertices(self, mesh: int) -> NDArray[np.float32]: ...
    def mesh_triangles(self, mesh: int) -> NDArray[np.uint32]: ...
    def mesh_world(self, mesh: int) -> NDArray[np.float64]: ...
    def render(
        self,
        camera: Camera,
        rule: FillRule = "top-left",
        cull: CullMode = "none",
        color: bool = False,
        threads: Optional[int] = None,
        method: RenderMethod = "raster",
    ) -> Frame: ...
    def cast_rays(
        self,
        origins: ArrayLike,
        directions: ArrayLike,
        near: float = 0.0,
        far: float = ...,
        cull: CullMode = "none",
        threads: Optional[int] = None,
    ) -> RayHits: ...
    def list_intersections(
        self,
        origins: ArrayLike,
        directions: ArrayLike,
        near: float = 0.0,
        far: float = ...,
        cull: CullMode = "none",
        threads: Optional[int] = None,
    ) -> Intersections: ...
    cast_rays_all = list_intersections

@final
class Camera:
    @staticmethod
    def look_at(
        eye: ArrayLike,
        target: ArrayLike,
        up: Optional[ArrayLike] = None,
        fov_y_deg: float = 45.0,
        width: int = 640,
        height: int = 480,
        near: float = 0.01,
        far: float = 1000.0,
    ) -> Camera: ...
    @staticmethod
    def orthographic(
        eye: ArrayLike,
        target: ArrayLike,
        ortho_height: float,
        up: Optional[ArrayLike] = None,
        width: int = 640,
        height: int = 480,
        near: float = 0.01,
        far: float = 1000.0,
    ) -> Camera: ...
    @staticmethod
    def from_intrinsics(
        intrinsic: ArrayLike,
        extrinsic: ArrayLike,
        width: int,
        height: int,
        near: float = 0.01,
        far: float = 1000.0,
    ) -> Camera: ...
    @staticmethod
    def from_json(path: _Path, scene: Optional[Scene] = None) -> Camera: ...
    @staticmethod
    def auto(scene: Scene, width: int = 640, height: int = 480) -> Camera: ...
    def with_size(self, width: int, height: int) -> Camera: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def eye(self) -> List[float]: ...
    @property
    def target(self) -> List[float]: ...
    @property
    def up(self) -> List[float]: ...
    @property
    def near(self) -> float: ...
    @property
    def far(self) -> float: ...
    @property
    def projection(self) -> Literal["perspective", "orthographic", "pinhole"]: ...
    @property
    def fov_y_deg(self) -> Optional[float]: ...
    @property
    def view_matrix(self) -> NDArray[np.float64]: ...
    @property
    def projection_matrix(self) -> NDArray[np.float64]: ...
    @property
    def intrinsic_matrix(self) -> List[List[float]]: ...
    @property
    def extrinsic_matrix(self) -> NDArray[np.float64]: ...
    def to_json(self) -> str: ...

@final
class Frame:
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def method(self) -> Literal["raster", "ray"]: ...
    @property
    def method_reason(self) -> str: ...
    @property
    def camera(self) -> Optional[Camera]: ...
    @property
    def ids(self) -> NDArray[np.uint32]: ...
    @property
    def depth(self) -> NDArray[np.float32]: ...
    @property
    def color(self) -> NDArray[np.uint8]: ...
    @property
    def mesh_ids(self) -> NDArray[np.uint32]: ...
    @property
    def instance_ids(self) -> NDArray[np.uint32]: ...
    @property
    def barycentrics(self) -> NDArray[np.float32]: ...
    @property
    def normals(self) -> NDArray[np.float32]: ...
    @property
    def distance(self) -> NDArray[np.float32]: ...
    @property
    def z(self) -> NDArray[np.float32]: ...
    def pixel_rays(self) -> Tuple[NDArray[np.float32], NDArray[np.float32]]: ...
    def pick(
        self, x: int, y: int, method: PickMethod = "buffer"
    ) -> Optional[Hit]: ...
    def select_rect(
        self,
        x0: int,
        y0: int,
        x1: int,
        y1: int,
        mode: SelectMode = "visible",
    ) -> Selection: ...
    def select_lasso(
        self, polygon: ArrayLike, mode: SelectMode = "visible"
    ) -> Selection: ...
    def layers(self, k: int) -> Layers: ...
    def ids_as(self, convention: str) -> NDArray[Any]: ...
